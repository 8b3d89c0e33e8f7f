// The analyzer's output: one document per analyzed program, "atomq.analysis_run" v1.
// The one definition of that schema; `atomq analyze` writes it and `atomq report` reads it.
//
// Profiles are first streamed as JSON Lines (one compact "atomq.kernel_profile" per line,
// flushed after each launch) so a crash of the profiled program loses nothing; the run
// document is then written atomically with each profile and its analysis.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "atomq/model/analysis.hpp"
#include "atomq/model/kernel_profile.hpp"

namespace atomq::analyzer {

inline constexpr const char* kAnalysisRunFormat = "atomq.analysis_run";
inline constexpr int kAnalysisRunVersion = 1;

// Counts of launches a profiling session saw, by what became of them.
struct SessionStats {
  long long launches_seen = 0;
  long long launches_profiled = 0;
  long long launches_filtered = 0;   // name filter, skip or count limit
  long long graph_launches = 0;      // graph launches and launches captured into graphs: not profiled
  long long failed = 0;              // profiling errors (the launch itself still ran)
  size_t passes = 0;
  std::string last_error;
};

// The "stats" line an injected collector appends to its profile stream, and the reader of
// that collector message as read_profile_stream hands it back (the two ends of one format).
std::string stats_line(const SessionStats& stats);
SessionStats stats_from_collector_message(const std::string& message);  // throws if not JSON

struct RunInfo {
  std::string command;        // the profiled program and its arguments, or the CSV file
  std::string source;         // "injected", "in_process", "ncu_csv"
  std::string table_path;
  std::string table_chip;
  std::vector<std::string> warnings;
  int program_exit_code = 0;
  SessionStats launches;
};

// Appends one profile per line and flushes, so what was written survives a crash.
class ProfileStreamWriter {
 public:
  explicit ProfileStreamWriter(const std::string& path);
  ~ProfileStreamWriter();
  void write(const model::KernelProfile& profile);
  void write_raw_line(const std::string& json_line);

 private:
  std::FILE* file_ = nullptr;
  std::mutex mutex_;
};


// Reads a JSON-Lines profile stream; a truncated last line (crash while writing) is skipped
// with a warning, any other bad line is an error naming the file and the line number.
std::vector<model::KernelProfile> read_profile_stream(const std::string& path,
                                                      std::vector<std::string>* collector_messages);

std::string run_to_json(const RunInfo& info, const std::vector<model::KernelProfile>& profiles,
                        const std::vector<model::KernelAnalysis>& analyses);

}  // namespace atomq::analyzer
