#include <map>

#include "atomq/common/atomic_file.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/model/analysis_json.hpp"
#include "atomq/run_document/run_document.hpp"
#include "atomq/version.hpp"

namespace atomq::run {

using nlohmann::json;

namespace {

// Per kernel with per-instruction counts: the launches its run counted, and which entries of
// "kernels" hold them (measured) or took their structure with their own counters (derived).
json instruction_counts_json(const std::vector<model::KernelProfile>& profiles) {
  json out = json::array();
  std::map<std::string, size_t> entry_of;  // symbol (or name) -> its entry in out
  for (size_t i = 0; i < profiles.size(); ++i) {
    const model::KernelProfile& p = profiles[i];
    if (!p.instructions) continue;
    const model::InstructionProfile& counts = *p.instructions;
    const auto [it, fresh] = entry_of.emplace(p.symbol.empty() ? p.kernel_name : p.symbol, out.size());
    if (fresh)
      out.push_back({{"kernel", p.kernel_name},
                     {"counted_launches", {{"first", counts.first_launch}, {"count", counts.launches}}},
                     {"measured", json::array()},
                     {"derived", json::array()}});
    json& entry = out[it->second];
    if (counts.basis == model::InstructionBasis::kMeasured)
      entry["counted_launches"] = {{"first", counts.first_launch}, {"count", counts.launches}};
    entry[enum_name(counts.basis)].push_back(i);
  }
  return out;
}

}  // namespace

json run_document_json(const RunInfo& info, const std::vector<model::KernelProfile>& profiles,
                       const std::vector<model::KernelAnalysis>& analyses) {
  json kernels = json::array();
  for (size_t i = 0; i < profiles.size(); ++i) {
    json k;
    k["profile"] = model::kernel_profile_to_json(profiles[i]);
    if (i < analyses.size()) k["analysis"] = model::analysis_json(analyses[i]);
    kernels.push_back(std::move(k));
  }
  return json{{"format", kRunDocumentFormat},
              {"version", kRunDocumentVersion},
              {"atomq_version", kVersion},
              {"atomq_commit", kGitCommit},
              {"atomq_model_version", kModelVersion},
              {"command", info.command},
              {"source", info.source},
              {"table", {{"path", info.table_path}, {"chip", info.table_chip}, {"digest", info.table_digest}}},
              {"warnings", info.warnings},
              {"program_exit_code", info.program_exit_code},
              {"launches",
               {{"seen", info.launches.launches_seen},
                {"profiled", info.launches.launches_profiled},
                {"filtered", info.launches.launches_filtered},
                {"in_graphs_not_profiled", info.launches.graph_launches},
                {"graph_launches_profiled", info.launches.graph_launches_profiled},
                {"graph_kernel_nodes_not_profiled", info.launches.graph_nodes_not_profiled},
                {"captured_into_graphs", info.launches.captured_launches},
                {"failed", info.launches.failed}}},
              {"replay_passes", info.launches.passes},
              {"instruction_counts", instruction_counts_json(profiles)},
              {"kernels", kernels}};
}

void write_run_document(const std::string& path, const RunInfo& info,
                        const std::vector<model::KernelProfile>& profiles,
                        const std::vector<model::KernelAnalysis>& analyses) {
  const std::string text = json_text(run_document_json(info, profiles, analyses), 1) + "\n";
  if (text.size() > kMaxRunDocumentBytes)
    throw std::runtime_error(path + ": the run document of " + std::to_string(profiles.size()) + " launches would be " +
                             std::to_string(text.size() >> 20) + " MiB, above the 256 MiB that atomq report and the "
                             "Python module read: not written (select fewer launches with -k, -s or -c)");
  write_file_atomically(path, text);
}

}  // namespace atomq::run
