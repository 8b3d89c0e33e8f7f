// Shared by analyze and hist --analyze: evaluate the model on profiles, write the run
// document atomically, print the report's terminal summary and the atomic sites.
#include "run_report.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "atomq/model/table_selection.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/analysis_json.hpp"
#include "atomq/model/launch_sites.hpp"
#include "atomq/report/report.hpp"
#include "commands.hpp"

namespace atomq::cli {

namespace {

// The report's short kernel name, cut to the column's width.
std::string short_name(const std::string& kernel_name, size_t width) {
  std::string name = report::terminal_text(report::short_kernel_name(kernel_name));  // no escape sequences
  if (name.size() > width) name = name.substr(0, width - 1) + "~";
  return name;
}

// "Where in the code": per kernel with per-instruction counts, its atomic sites (report.hpp), of
// the launch they measured where there is one.
void print_atomic_sites(FILE* out, const std::vector<model::KernelAnalysis>& analyses) {
  std::set<std::string> shown;
  for (const bool measured : {true, false})
    for (const auto& an : analyses) {
      if ((an.sites_basis.basis == model::InstructionBasis::kMeasured) != measured) continue;
      const auto rows = report::atomic_site_rows(an, 8);
      if (rows.empty() || !shown.insert(an.kernel_name).second) continue;
      fmt::print(out, "{}: atomic sites ({})\n", short_name(an.kernel_name, 60),
                 measured ? "per-instruction counts" : "derived from a launch's own counters");
      for (const auto& r : rows)
        fmt::print(out, "  {} {:<18} {:<28} {:>6} shared busy  e {:>4}  k {:>4}  {:>10} per launch  {}\n", r[0], r[1], r[2],
                   r[3], r[4], r[5], r[6], r[7]);
    }
}

// One launch's figures from the per-instruction counts: measured, derived (with its attempts
// per update) or not derivable (why).
std::string launch_basis_line(const model::KernelAnalysis& an) {
  const model::SitesBasis& b = an.sites_basis;
  const model::CasRetryTotals t = model::cas_retry_totals(an.sites);
  if (b.basis == model::InstructionBasis::kDerived && !b.derived) return b.text;  // why not
  return (t.sites > 0 ? fmt::format("{:.1f} attempts per update, ", t.attempts_per_update) : "") + b.text;
}

// "launch 1", or "rank 2 launch 1" in a program of several processes.
std::string launch_label(const std::vector<model::KernelProfile>& profiles, size_t i) {
  const auto& process = profiles[i].process;
  const std::string rank = process && process->rank ? fmt::format("rank {} ", *process->rank) : "";
  return fmt::format("{}launch {}", rank, model::kernel_launch_index(profiles, i));
}

// Which launches the per-instruction counts measured and which took their figures from their own
// counters, per kernel (the run document's "instruction_counts").
void print_instruction_bases(FILE* out, const std::vector<model::KernelProfile>& profiles,
                             const std::vector<model::KernelAnalysis>& analyses) {
  std::map<std::string, std::vector<size_t>> launches;  // symbol -> profiles with counts
  std::vector<std::string> order;
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (!profiles[i].instructions) continue;
    const std::string key = profiles[i].symbol.empty() ? profiles[i].kernel_name : profiles[i].symbol;
    if (launches[key].empty()) order.push_back(key);
    launches[key].push_back(i);
  }
  for (const std::string& key : order) {
    const auto& ids = launches[key];
    if (ids.size() < 2) continue;  // one launch: its sites above say it all
    const model::InstructionProfile& counts = *profiles[ids.front()].instructions;
    fmt::print(out, "{}: per-instruction counts of launch {}{}; the other launches derived from their own counters\n",
               short_name(profiles[ids.front()].kernel_name, 60), counts.first_launch,
               counts.launches > 1 ? fmt::format("-{}", counts.first_launch + counts.launches - 1) : "");
    for (size_t i : ids)
      fmt::print(out, "  {:<10} {:<8} {}\n", launch_label(profiles, i), enum_name(profiles[i].instructions->basis),
                 launch_basis_line(analyses[i]));
  }
}

// The report's own terminal rendering (report.hpp, render_terminal_summary: headlines, the
// kernel table, each kernel's advice), from the analyses just evaluated: the run carries them as
// stored analyses and names this process as both their writer and the report's build
// (ReportRequest::build_*), so the report reads them instead of evaluating them again (a
// modified tree's commit would otherwise refuse them). Where GPUs' own tables evaluated some
// kernels, the run names no one table and the report evaluates again, with the same tables.
// `atomq report` prints the same.
void print_report_summary(FILE* out, const run::RunInfo& info, const std::vector<model::KernelProfile>& profiles,
                          const std::vector<model::KernelAnalysis>& analyses, const model::SelectedTable& table,
                          const std::map<std::string, model::SelectedTable>& own) {
  if (profiles.empty()) return;
  report::ReportRequest request;
  run::RunDocument run{"", "", info, profiles, {}};
  for (const auto& an : analyses) run.stored_analyses.push_back(model::analysis_json(an));
  run.info.atomq_version = request.build_version = "this process";
  run.info.atomq_commit = request.build_commit = "this process";
  request.runs.push_back(std::move(run));
  request.table = table.table;
  for (const auto& [uuid, t] : own) request.device_tables.emplace(uuid, t.table);
  fmt::print(out, "{}", report::render_terminal_summary(report::build_report(request)));
}

// GPUs that have a table of their own (calibrate --all-devices), by UUID; the others use the
// chip's table.
std::map<std::string, model::SelectedTable> own_tables(const std::vector<const model::KernelProfile*>& profiles,
                                                       const std::string& table_arg) {
  std::map<std::string, model::SelectedTable> out;
  std::set<std::string> looked_up;  // once per GPU: a table is a 2 MB document (35 ms to read)
  for (const model::KernelProfile* p : profiles) {
    if (p->device.uuid.empty() || !looked_up.insert(p->device.uuid).second) continue;
    model::SelectedTable t = model::select_device_table(table_arg, p->device.chip, p->device.uuid);
    if (t.path != model::user_device_table_path(p->device.chip, p->device.uuid)) continue;
    for (const auto& w : t.warnings) spdlog::warn("{}", w);
    out.emplace(p->device.uuid, std::move(t));
  }
  return out;
}

std::vector<const model::KernelProfile*> profiles_of(const std::vector<model::KernelProfile>& profiles) {
  std::vector<const model::KernelProfile*> out;
  for (const auto& p : profiles) out.push_back(&p);
  return out;
}

// Kernels of another board than the first run's, on GPUs without a table of their own: each such
// board is evaluated with the table select_table chooses for it (its bundled table), unless the
// user named one table for all (--table, $ATOMQ_TABLE) or that choice is the first run's table
// file: then with the first run's table, and a warning names the board once.
void choose_board_tables(report::ReportRequest& request, const std::vector<const model::KernelProfile*>& profiles,
                         const model::SelectedTable& table, const std::string& chip, const std::string& gpu) {
  if (gpu.empty()) return;
  const bool named = table.origin == "--table" || table.origin == "ATOMQ_TABLE";
  std::set<std::string> looked_up;  // once per board: a table is a 2 MB document (35 ms to read)
  for (const model::KernelProfile* profile : profiles) {
    const DeviceInfo& device = profile->device;
    if (device.name.empty() || device.name == gpu || request.device_tables.count(device.uuid) ||
        !looked_up.insert(device.name).second)
      continue;
    if (named) {
      spdlog::warn("kernels of the {} evaluated with the table named for all runs, {}", device.name, table.path);
      continue;
    }
    model::SelectedTable own = model::select_table("", device.chip.empty() ? chip : device.chip, device.name);
    if (own.path == table.path) {
      spdlog::warn("kernels of the {} evaluated with the table chosen for the {} ({}), which is also this board's "
                   "choice: pass --table to choose", device.name, gpu, table.path);
      continue;
    }
    for (const auto& w : own.warnings) spdlog::warn("{}", w);
    spdlog::info("kernels of the {} evaluated with the table chosen for it, {} ({})", device.name, own.path,
                 own.reason);
    request.board_tables.emplace(device.name,
                                 report::ReportRequest::BoardTable{std::move(own.table), own.path, own.origin});
  }
}

}  // namespace

int write_and_print_run(const std::string& output, const std::string& table_path, run::RunInfo info,
                        const std::vector<model::KernelProfile>& profiles, size_t* evaluated) {
  const std::string chip = profiles.empty() ? "" : profiles.front().device.chip;
  const std::string gpu = profiles.empty() ? "" : profiles.front().device.name;
  model::SelectedTable table = model::select_table(table_path, chip, gpu);
  info.table_path = table.path;
  info.table_chip = table.table.provenance.device.chip;
  for (auto& w : table.warnings) info.warnings.push_back(w);
  const model::ServiceTimeModel service(table.table);
  const auto own = own_tables(profiles_of(profiles), table_path);
  std::map<std::string, model::ServiceTimeModel> own_service;
  for (const auto& [uuid, t] : own) {
    own_service.emplace(uuid, model::ServiceTimeModel(t.table));
  }

  std::vector<model::KernelAnalysis> analyses;
  bool one_table = true;
  for (const auto& p : profiles) {
    const auto it = own_service.find(p.device.uuid);
    one_table = one_table && it == own_service.end();
    analyses.push_back(model::analyze(p, it != own_service.end() ? it->second : service));
  }
  if (evaluated)
    *evaluated = static_cast<size_t>(std::count_if(analyses.begin(), analyses.end(),
                                                   [](const model::KernelAnalysis& an) { return an.evaluated; }));
  // The report shows these analyses as stored when it uses the same table (and build).
  info.table_digest = one_table ? calibration::service_table_digest(table.table) : "";
  run::write_run_document(output, info, profiles, analyses);
  FILE* out = output == "-" ? stderr : stdout;  // a run document on standard output is alone there

  for (const auto& w : info.warnings) spdlog::warn("{}", w);
  print_report_summary(out, info, profiles, analyses, table, own);
  std::set<std::string> assumed_lanes;  // once per kernel
  for (const auto& an : analyses)
    if (an.evaluated && an.inputs.instructions > 0 && an.inputs.active_lanes_origin == model::Origin::kAssumed &&
        assumed_lanes.insert(an.kernel_name).second)
      fmt::print(out, "{}: e* {}\n", short_name(an.kernel_name, 36), an.inputs.active_lanes_basis);
  print_atomic_sites(out, analyses);
  print_instruction_bases(out, profiles, analyses);
  fmt::print(out, "\n{} launch(es) profiled", info.launches.launches_profiled);
  if (info.launches.passes) fmt::print(out, " ({} replay passes each)", info.launches.passes);
  if (info.launches.launches_filtered) fmt::print(out, ", {} not selected", info.launches.launches_filtered);
  if (info.launches.graph_launches_profiled)
    fmt::print(out, ", {} graph launch(es) profiled, each as one range over all its kernel nodes (the launch "
               "repeated per pass from a device-memory checkpoint)", info.launches.graph_launches_profiled);
  if (info.launches.graph_nodes_not_profiled)
    fmt::print(out, " ({} kernel node(s) NOT profiled: {})", info.launches.graph_nodes_not_profiled,
               info.launches.graph_note);
  if (info.launches.graph_launches)
    fmt::print(out, ", {} graph launch(es) NOT profiled ({})", info.launches.graph_launches, info.launches.graph_note);
  fmt::print(out, "; table {} ({}); wrote {}\n", table.path, table.reason, output == "-" ? "standard output" : output);
  for (const auto& [uuid, t] : own) fmt::print(out, "kernels on {} evaluated with its own table {}\n", uuid, t.path);
  return kExitOk;
}

report::Report write_reports(const report::ReportRequest& request,
                             const std::vector<std::string>& outputs) {
  report::Report built = report::build_report(request);
  report::write_reports(built, outputs);
  return built;
}

void print_written(FILE* stream, const std::vector<std::string>& outputs) {
  for (const auto& out : outputs)
    if (out != "-") fmt::print(stream, "wrote {}\n", out);
}

model::SelectedTable select_report_table(report::ReportRequest& request, const std::string& table_arg) {
  std::string chip, gpu;
  for (const auto& run : request.runs)
    if (chip.empty() && !run.profiles.empty()) {
      chip = run.profiles.front().device.chip;
      gpu = run.profiles.front().device.name;
    }
  model::SelectedTable table = model::select_table(table_arg, chip, gpu);
  for (const auto& w : table.warnings) spdlog::warn("{}", w);
  request.table = table.table;
  request.table_path = table.path;
  request.table_origin = table.origin;
  std::vector<const model::KernelProfile*> all;
  for (const auto* runs : {&request.runs, &request.baseline_runs})
    for (const auto& run : *runs)
      for (const auto& p : run.profiles) all.push_back(&p);
  for (auto& [uuid, t] : own_tables(all, table_arg)) {
    spdlog::info("kernels on {} evaluated with its own table {}", uuid, t.path);
    request.device_tables.emplace(uuid, std::move(t.table));
  }
  choose_board_tables(request, all, table, chip, gpu);
  return table;
}


}  // namespace atomq::cli
