#include "atomq/analyzer/analysis_run.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "atomq/model/analysis_json.hpp"
#include "atomq/version.hpp"

namespace atomq::analyzer {

using nlohmann::json;

ProfileStreamWriter::ProfileStreamWriter(const std::string& path) {
  file_ = std::fopen(path.c_str(), "a");
  if (file_ == nullptr) throw std::runtime_error(path + ": cannot open for writing");
}

ProfileStreamWriter::~ProfileStreamWriter() {
  if (file_) std::fclose(file_);
}

void ProfileStreamWriter::write_raw_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::fputs(line.c_str(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

void ProfileStreamWriter::write(const model::KernelProfile& profile) {
  write_raw_line(json::parse(model::serialize_kernel_profile(profile)).dump());
}

std::vector<model::KernelProfile> read_profile_stream(const std::string& path,
                                                      std::vector<std::string>* messages) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the profile stream");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  std::vector<model::KernelProfile> profiles;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1);
    json j;
    try {
      j = json::parse(lines[i]);
    } catch (const json::parse_error&) {
      if (i + 1 == lines.size()) {  // the program died while this line was written
        if (messages) messages->push_back(where + ": truncated last line skipped");
        continue;
      }
      throw std::runtime_error(where + ": not valid JSON");
    }
    if (j.contains("collector")) {  // a message of the injected collector (error, stats)
      if (messages) messages->push_back(j["collector"].dump());
      continue;
    }
    profiles.push_back(model::parse_kernel_profile(lines[i], where));
  }
  return profiles;
}

std::string run_to_json(const RunInfo& info, const std::vector<model::KernelProfile>& profiles,
                        const std::vector<model::KernelAnalysis>& analyses) {
  json kernels = json::array();
  for (size_t i = 0; i < profiles.size(); ++i) {
    json k;
    k["profile"] = json::parse(model::serialize_kernel_profile(profiles[i]));
    if (i < analyses.size()) k["analysis"] = json::parse(model::analysis_to_json(analyses[i]));
    kernels.push_back(std::move(k));
  }
  json doc{{"format", kAnalysisRunFormat},
           {"version", kAnalysisRunVersion},
           {"atomq_version", kVersion},
           {"atomq_commit", kGitCommit},
           {"command", info.command},
           {"source", info.source},
           {"table", {{"path", info.table_path}, {"chip", info.table_chip}}},
           {"warnings", info.warnings},
           {"program_exit_code", info.program_exit_code},
           {"launches",
            {{"seen", info.launches.launches_seen},
             {"profiled", info.launches.launches_profiled},
             {"filtered", info.launches.launches_filtered},
             {"in_graphs_not_profiled", info.launches.graph_launches},
             {"failed", info.launches.failed}}},
           {"replay_passes", info.launches.passes},
           {"kernels", kernels}};
  return doc.dump(1) + "\n";
}

std::string stats_line(const SessionStats& s) {
  return json{{"collector",
               {{"kind", "stats"},
                {"launches_seen", s.launches_seen},
                {"launches_profiled", s.launches_profiled},
                {"launches_filtered", s.launches_filtered},
                {"graph_launches", s.graph_launches},
                {"failed", s.failed},
                {"passes", s.passes},
                {"last_error", s.last_error}}}}
      .dump();
}

SessionStats stats_from_collector_message(const std::string& message) {
  const json j = json::parse(message);
  SessionStats s;
  s.launches_seen = j.value("launches_seen", 0LL);
  s.launches_profiled = j.value("launches_profiled", 0LL);
  s.launches_filtered = j.value("launches_filtered", 0LL);
  s.graph_launches = j.value("graph_launches", 0LL);
  s.failed = j.value("failed", 0LL);
  s.passes = j.value("passes", size_t{0});
  s.last_error = j.value("last_error", std::string());
  return s;
}

}  // namespace atomq::analyzer
