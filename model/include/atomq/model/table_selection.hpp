// Which service-time table to use for a chip: --table, else $ATOMQ_TABLE, else the user's
// calibrated table (user_table_path), else the bundled one under atomq's data folder
// (atomq/common/data_dir.hpp): the GPU model's own where one is bundled, else the chip's.
#pragma once

#include <string>
#include <vector>

#include "atomq/calibration/service_table.hpp"

namespace atomq::model {

struct SelectedTable {
  calibration::ServiceTable table;
  std::string path;
  std::string origin;                 // "--table", "ATOMQ_TABLE", "user calibration", "bundled"
  std::string reason;                 // why this one, in words (printed by analyze and report)
  std::vector<std::string> warnings;  // e.g. table chip differs from the GPU's
};

// A chip name that may become part of a file name: [A-Za-z0-9_.-] only, not starting with '.'
// (so never "..", never a folder). The chip comes from input files, which may hold anything.
bool is_chip_name(const std::string& chip);

// Where `atomq calibrate` installs a chip's table and where select_table looks for it:
// $XDG_DATA_HOME/atomq/tables/CHIP.json, else $HOME/.local/share/atomq/tables/CHIP.json.
// Empty when neither variable is set, or when chip is not a chip name (is_chip_name).
std::string user_table_path(const std::string& chip);

// One GPU's own table, as `atomq calibrate --all-devices` installs it beside the chip's:
// .../atomq/tables/CHIP-GPU-<uuid>.json. Empty when user_table_path is.
std::string user_device_table_path(const std::string& chip, const std::string& uuid);

// The bundled tables' folder: $ATOMQ_TABLE_DIR, else data_dir()/tables.
std::string bundled_table_dir();

// chip may be empty (unknown): then the bundled GH100 table is used, with a warning; so is a
// chip that is not a chip name. A user folder that cannot be read is passed over, and a user
// table that cannot be loaded too, with a warning naming it, the error and the fix (the
// bundled table is tried). A table given with --table or $ATOMQ_TABLE must load. gpu_name (the
// driver's name of the board, may be empty) picks a bundled table of that GPU model before the
// chip's (bundled_gpu_table_path); the chip's table of another board comes with a warning.
SelectedTable select_table(const std::string& explicit_path, const std::string& chip, const std::string& gpu_name = "");

// As select_table, but the GPU's own table (user_device_table_path) comes before the chip's
// when neither --table nor $ATOMQ_TABLE names one. uuid may be empty (unknown GPU).
SelectedTable select_device_table(const std::string& explicit_path, const std::string& chip, const std::string& uuid,
                                  const std::string& gpu_name = "");

}  // namespace atomq::model
