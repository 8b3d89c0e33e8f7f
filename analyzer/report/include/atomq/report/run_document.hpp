// Reading "atomq.analysis_run" v1 documents (written by `atomq analyze` and `atomq hist
// --analyze`; schema in atomq/analyzer/analysis_run.hpp) for the report. Only the profiles
// are taken: the report evaluates them again with the current model and table, so a run
// recorded with an older build shows what this build concludes.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/model/kernel_profile.hpp"

namespace atomq::report {

// Not a run document, wrong version, or a malformed kernel. what() names the file and field.
class RunDocumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunDocument {
  std::string path;           // where it was read from (or the source name given)
  std::string label;          // file name without folder and ".json": names the run in the report
  std::string command;        // the profiled program or the hist command
  std::string source;         // "injected", "in_process", "ncu_csv"
  std::string atomq_version, atomq_commit;  // the build that recorded it
  std::string table_path, table_chip;       // the table it was evaluated with then
  std::vector<std::string> warnings;
  std::vector<model::KernelProfile> profiles;  // in launch order
};

RunDocument parse_run_document(const std::string& json_text, const std::string& source_name);
RunDocument load_run_document(const std::string& path);

}  // namespace atomq::report
