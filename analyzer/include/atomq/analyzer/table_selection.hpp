// Which service-time table to use for a chip: --table, else $ATOMQ_TABLE, else the user's
// calibrated table (~/.local/share/atomq/tables/CHIP.json), else the bundled one.
#pragma once

#include <string>
#include <vector>

#include "atomq/calibration/service_table.hpp"

namespace atomq::analyzer {

struct SelectedTable {
  calibration::ServiceTable table;
  std::string path;
  std::string origin;                 // "--table", "ATOMQ_TABLE", "user calibration", "bundled"
  std::vector<std::string> warnings;  // e.g. table chip differs from the GPU's
};

// chip may be empty (unknown): then the bundled GH100 table is used, with a warning.
SelectedTable select_table(const std::string& explicit_path, const std::string& chip);

}  // namespace atomq::analyzer
