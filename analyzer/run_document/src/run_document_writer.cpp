#include "atomq/common/atomic_file.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/model/analysis_json.hpp"
#include "atomq/run_document/run_document.hpp"
#include "atomq/version.hpp"

namespace atomq::run {

using nlohmann::json;

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
                {"graph_launches_profiled", info.launches.graph_launches_profiled},
                {"graph_kernel_nodes_not_profiled", info.launches.graph_nodes_not_profiled},
                {"captured_into_graphs", info.launches.captured_launches},
                {"failed", info.launches.failed}}},
              {"replay_passes", info.launches.passes},
              {"kernels", kernels}};
}

void write_run_document(const std::string& path, const RunInfo& info,
                        const std::vector<model::KernelProfile>& profiles,
                        const std::vector<model::KernelAnalysis>& analyses) {
  write_file_atomically(path, json_text(run_document_json(info, profiles, analyses), 1) + "\n");
}

}  // namespace atomq::run
