// Recorded runs committed with atomq (analyzer/report/recorded/): run documents captured on a
// GPU by atomq itself, replayed by `atomq demo` on machines without one. manifest.json lists
// them with their provenance.
#pragma once

#include <string>
#include <vector>

namespace atomq::report {

struct RecordedSet {
  std::string dir;
  std::string provenance;                 // GPU, driver, atomq commit, date, commands
  std::string table_chip;                 // the chip whose bundled table matches them
  std::vector<std::string> run_paths;     // dir joined with the manifest's relative paths
};

// atomq's data folder's recorded/ (atomq/common/data_dir.hpp; the demo has --recorded).
// Throws std::runtime_error when there is no data folder.
std::string default_recorded_dir();

// Reads dir/manifest.json; throws RunDocumentError naming the file and field.
RecordedSet load_recorded_set(const std::string& dir);

}  // namespace atomq::report
