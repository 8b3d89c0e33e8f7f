#include "atomq/run_document/profile_stream.hpp"
#include "atomq/common/json_fields.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace atomq::run {

using nlohmann::json;

json stats_message(const SessionStats& s) {
  return json{{"kind", "stats"},
              {"launches_seen", s.launches_seen},
              {"launches_profiled", s.launches_profiled},
              {"launches_filtered", s.launches_filtered},
              {"graph_launches", s.graph_launches},
              {"graph_launches_profiled", s.graph_launches_profiled},
              {"graph_nodes_not_profiled", s.graph_nodes_not_profiled},
              {"captured_launches", s.captured_launches},
              {"graph_note", s.graph_note},
              {"failed", s.failed},
              {"passes", s.passes},
              {"last_error", s.last_error},
              {"seconds_in_launches", s.seconds_in_launches},
              {"seconds_configuring", s.seconds_configuring},
              {"seconds_keeping_code", s.seconds_keeping_code}};
}

json error_message(const std::string& text) { return json{{"kind", "error"}, {"message", text}}; }

json instructions_message(const std::string& symbol, const model::InstructionProfile& profile,
                          const std::optional<model::ProcessTag>& process) {
  json m{{"kind", "instructions"}, {"symbol", symbol}, {"instructions", model::instruction_profile_to_json(profile)}};
  if (process) {
    m["process"] = {{"pid", process->pid}};
    if (process->rank) m["process"]["rank"] = *process->rank;
  }
  return m;
}

namespace {

// The process of an instructions message: its pid, and its rank where the launcher set one.
model::ProcessTag message_process(const json& process, const std::string& source_name) {
  const JsonFields<model::ProfileError> r(source_name);
  r.object(process, "process");
  model::ProcessTag tag;
  tag.pid = r.integer(process, "process", "pid", 0);
  if (process.contains("rank")) tag.rank = static_cast<int>(r.integer(process, "process", "rank", 0, 2147483647));
  return tag;
}

}  // namespace

InstructionsMessage instructions_from_message(const json& message, const std::string& source_name) {
  InstructionsMessage m;
  if (!message.contains("symbol") || !message["symbol"].is_string() || !message.contains("instructions"))
    throw model::ProfileError(source_name + ": an instructions message needs 'symbol' and 'instructions'");
  m.symbol = message["symbol"].get<std::string>();
  m.profile = model::instruction_profile_from_json(message["instructions"], source_name);
  if (message.contains("process")) m.process = message_process(message["process"], source_name);
  return m;
}

SessionStats stats_from_message(const json& j) {
  // Through the field reader: a wrong type is a ProfileError naming the field, never the
  // library's type_error (which callers catching std::runtime_error would miss).
  const JsonFields<model::ProfileError> r("the collector's stats message");
  const auto count = [&](const char* key) {
    const json* v = r.optional_member(j, "", key);
    return v ? r.integer(*v, key, 0) : 0;
  };
  SessionStats s;
  s.launches_seen = count("launches_seen");
  s.launches_profiled = count("launches_profiled");
  s.launches_filtered = count("launches_filtered");
  s.graph_launches = count("graph_launches");
  s.graph_launches_profiled = count("graph_launches_profiled");
  s.graph_nodes_not_profiled = count("graph_nodes_not_profiled");
  s.captured_launches = count("captured_launches");
  s.graph_note = r.optional_str(j, "", "graph_note");
  s.failed = count("failed");
  s.passes = static_cast<size_t>(count("passes"));
  s.last_error = r.optional_str(j, "", "last_error");
  const auto seconds = [&](const char* key) {
    const json* v = r.optional_member(j, "", key);
    return v ? r.number(*v, key, 0.0) : 0.0;
  };
  s.seconds_in_launches = seconds("seconds_in_launches");
  s.seconds_configuring = seconds("seconds_configuring");
  s.seconds_keeping_code = seconds("seconds_keeping_code");
  return s;
}

ProfileStreamWriter::ProfileStreamWriter(const std::string& path) {
  file_ = std::fopen(path.c_str(), "a");
  if (file_ == nullptr) throw std::runtime_error(path + ": cannot open for writing");
}

ProfileStreamWriter::~ProfileStreamWriter() {
  if (file_) std::fclose(file_);
}

void ProfileStreamWriter::write_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fputs(line.c_str(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

void ProfileStreamWriter::write(const model::KernelProfile& profile) {
  // A counter that could not be evaluated (NaN, inf) is left out, so the analysis names it
  // missing; a profile the reader would still refuse is not written (ProfileError), never a
  // line that makes the whole stream unreadable.
  model::KernelProfile p = profile;
  for (auto it = p.counters.begin(); it != p.counters.end();)
    it = std::isfinite(it->second) ? std::next(it) : p.counters.erase(it);
  model::validate_kernel_profile(p, "the collector's profile of " + p.kernel_name);
  write_line(json_text(model::kernel_profile_to_json(p)));
}

void ProfileStreamWriter::write_message(const json& message) {
  write_line(json_text(json{{"collector", message}}));
}

ProfileStream read_profile_stream(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the profile stream");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  ProfileStream stream;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1);
    json j;
    try {
      j = json::parse(lines[i]);
    } catch (const json::exception&) {  // a syntax error, or a number beyond double
      if (i + 1 == lines.size()) {  // the program died while this line was written
        stream.notes.push_back(where + ": truncated last line skipped");
        continue;
      }
      throw std::runtime_error(where + ": not valid JSON");
    }
    if (j.is_object() && j.contains("collector")) {
      stream.messages.push_back(j["collector"]);
      continue;
    }
    stream.profiles.push_back(model::kernel_profile_from_json(j, where));
  }
  return stream;
}

}  // namespace atomq::run
