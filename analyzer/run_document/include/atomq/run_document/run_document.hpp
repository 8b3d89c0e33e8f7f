// The analyzer's output: one document per analyzed program, "atomq.analysis_run" v1, written
// by `atomq analyze` and `atomq hist --analyze` and read by `atomq report` (docs/analyzer.md).
// The one definition of that schema: format, version, writer and reader live here.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/model/analysis.hpp"
#include "atomq/model/kernel_profile.hpp"

namespace atomq::run {

inline constexpr const char* kRunDocumentFormat = "atomq.analysis_run";
inline constexpr int kRunDocumentVersion = 1;

// Counts of launches a profiling session saw, by what became of them.
struct SessionStats {
  long long launches_seen = 0;
  long long launches_profiled = 0;
  long long launches_filtered = 0;   // name filter, skip or count limit
  long long graph_launches = 0;      // graph launches whose kernels were not profiled (graph_note says why)
  long long graph_launches_profiled = 0;  // graph launches profiled, each as one range over its kernel nodes
  long long graph_nodes_not_profiled = 0;  // kernel nodes of graph launches whose profiling failed midway
  long long captured_launches = 0;   // launches captured into graphs (they run when a graph is launched)
  std::string graph_note;            // why graph launches were not profiled, or an assumption made
  long long failed = 0;              // profiling errors (the launch itself still ran)
  size_t passes = 0;
  std::string last_error;
  // Where the collector's time went (wall seconds, every process added up): from each launch's
  // ENTER callback to the end of its EXIT callback (the launch call, its replay passes and the
  // decoding), building counter configurations, and keeping loaded code objects.
  double seconds_in_launches = 0;
  double seconds_configuring = 0;
  double seconds_keeping_code = 0;
};

// Everything about a run but its kernels.
struct RunInfo {
  std::string command;        // the profiled program and its arguments, or the CSV file
  std::string source;         // "injected", "in_process", "ncu_csv"
  std::string table_path;
  std::string table_chip;
  // calibration::service_table_digest of the table every analysis used; "" when not one table
  // (a GPU's own table for some kernels) or not recorded (documents before it).
  std::string table_digest;
  std::vector<std::string> warnings;
  int program_exit_code = 0;
  SessionStats launches;
  std::string atomq_version;  // the build that wrote the document (set by the writer)
  std::string atomq_commit;
};

// A run document as read back. The report shows the stored analyses where this build wrote
// them with the same table (stored_analyses_unusable), else it evaluates the profiles again, so
// a run recorded with an older build shows what this build concludes.
struct RunDocument {
  std::string path;   // where it was read from (or the source name given)
  std::string label;  // file name without folder and ".json": names the run in the report
  RunInfo info;
  std::vector<model::KernelProfile> profiles;  // in launch order
  // Each kernel's "analysis" as written (null where none), read (model::analysis_from_json)
  // only when it may stand: a document of another build may hold another analysis format.
  std::vector<nlohmann::json> stored_analyses;
};

// Why a document's stored analyses cannot stand for this build's evaluation with the table of
// digest `table_digest`, in words; "" when they can: written by this build (same version and
// commit, the commit clean) with that table. The second form names the build explicitly.
std::string stored_analyses_unusable(const RunInfo& info, const std::string& table_digest);
std::string stored_analyses_unusable(const RunInfo& info, const std::string& table_digest,
                                     const std::string& build_version, const std::string& build_commit);

// Not a run document, wrong version, or a malformed kernel. what() names the file and field.
class RunDocumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The document; `analyses` may be shorter than `profiles` (kernels without an analysis).
nlohmann::json run_document_json(const RunInfo& info,
                                 const std::vector<model::KernelProfile>& profiles,
                                 const std::vector<model::KernelAnalysis>& analyses);
// The most a reader reads (read_text_file in common/src/atomic_file.cpp: report, the Python
// module); a larger document is refused before anything is written.
inline constexpr size_t kMaxRunDocumentBytes = size_t{256} << 20;

// Written atomically (temporary file + rename). Throws std::runtime_error naming the path and
// the limit, writing nothing, when the text would exceed kMaxRunDocumentBytes.
void write_run_document(const std::string& path, const RunInfo& info,
                        const std::vector<model::KernelProfile>& profiles,
                        const std::vector<model::KernelAnalysis>& analyses);

RunDocument parse_run_document(const std::string& json_text, const std::string& source_name);
RunDocument load_run_document(const std::string& path);

}  // namespace atomq::run
