// The profile stream: while a program runs, its profiles are streamed as JSON Lines (one
// compact "atomq.kernel_profile" per line, flushed after each launch) so a crash of the
// profiled program loses nothing. The collector also appends messages of its own
// ({"collector": {...}}): errors and, at the end, its session counts.
#pragma once

#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "atomq/model/kernel_profile.hpp"
#include "atomq/run_document/run_document.hpp"

namespace atomq::run {

// A collector message: {"kind": "stats", ...} or {"kind": "error", "message": ...}.
nlohmann::json stats_message(const SessionStats& stats);
nlohmann::json error_message(const std::string& text);
// The counts of a "stats" message (absent fields read as 0).
SessionStats stats_from_message(const nlohmann::json& message);
// A per-instruction run's result: {"kind": "instructions", "symbol": ..., "instructions": ...,
// "process": {"pid", "rank"}}: the process tells which rank's launches were counted.
nlohmann::json instructions_message(const std::string& symbol, const model::InstructionProfile& profile,
                                    const std::optional<model::ProcessTag>& process = std::nullopt);
struct InstructionsMessage {
  std::string symbol;
  model::InstructionProfile profile;
  std::optional<model::ProcessTag> process;  // absent in streams of builds before it
};
// Throws model::ProfileError naming `source_name` and the field.
InstructionsMessage instructions_from_message(const nlohmann::json& message, const std::string& source_name);

// Appends one line per profile or message and flushes, so what was written survives a crash.
class ProfileStreamWriter {
 public:
  explicit ProfileStreamWriter(const std::string& path);
  ~ProfileStreamWriter();
  ProfileStreamWriter(const ProfileStreamWriter&) = delete;
  ProfileStreamWriter& operator=(const ProfileStreamWriter&) = delete;
  // Non-finite counters are dropped; throws model::ProfileError (nothing written) when the
  // profile reader would refuse what is left.
  void write(const model::KernelProfile& profile);
  void write_message(const nlohmann::json& message);

 private:
  void write_line(const std::string& line);
  std::FILE* file_ = nullptr;
  std::mutex mutex_;
};

struct ProfileStream {
  std::vector<model::KernelProfile> profiles;
  std::vector<nlohmann::json> messages;  // the collector's messages, in order
  std::vector<std::string> notes;        // e.g. a truncated last line that was skipped
};

// A truncated last line (crash while writing) is skipped with a note; any other bad line is
// an error naming the file and the line number.
ProfileStream read_profile_stream(const std::string& path);

}  // namespace atomq::run
