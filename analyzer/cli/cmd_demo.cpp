// atomq demo [-o DIR]: the whole job in one command. With a GPU: calibrate (quick grid), run
// the histogram family on one-value and uniform inputs with --analyze, write the report.
// Without one: the same analysis on profiles recorded by atomq itself (the GPU they were recorded
// on is named from the profiles), with the bundled table, and the report says plainly that it
// replays recorded data.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <memory>
#include <string>
#include <vector>

#include "run_report.hpp"
#include "atomq/report/recorded.hpp"
#include "atomq/report/report.hpp"
#include "atomq/run_document/run_document.hpp"
#include "commands.hpp"

namespace atomq::cli {

namespace {

struct DemoArgs {
  std::string output_dir = "atomq-demo";
  bool replay = false;
  std::string recorded_dir;  // default: the data folder's recorded/
  std::string table;
  long long samples = 64LL << 20;
  int runs = 5;
};

// The histogram family the demo runs, and what it puts side by side: privatizing the naive
// kernel, replicating the block-private one, the counting-sort pass whose ranks serialize a
// warp's lanes on one word against its lane-replicated fix, and (from the test program) a
// 32-way conflict against conflict-free atomics.
const std::vector<std::string> kVariants = {"naive_global",    "block_private", "warp_replicated",
                                            "lane_replicated", "rank_shared",   "rank_lane_replicated"};
const std::vector<std::string> kInputs = {"single", "uniform"};
const std::vector<std::pair<std::string, std::string>> kPairs = {
    {"naive_global-single", "block_private-single"},
    {"block_private-single", "warp_replicated-single"},
    {"block_private-uniform", "warp_replicated-uniform"},
    {"rank_shared-single", "rank_lane_replicated-single"},
    {"multi_kernel_app/add_conflict32", "multi_kernel_app/popc_distinct"},
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Runs a command with the terminal attached (its progress and summaries are the demo's output).
int run_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
  fmt::print("\n$ {}\n", line);
  std::fflush(stdout);
  const int status = std::system(line.c_str());
  return status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

void make_dir(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw std::runtime_error(path + ": cannot create the folder (" + ec.message() + ")");
}

std::vector<std::pair<std::string, std::string>> pairs_present(const std::vector<report::RunDocument>& runs) {
  std::vector<std::string> labels;
  for (const auto& run : runs) {
    labels.push_back(run.label);
    for (const auto& p : run.profiles) labels.push_back(run.label + "/" + report::short_kernel_name(p.kernel_name));
  }
  auto has = [&](const std::string& l) { return std::find(labels.begin(), labels.end(), l) != labels.end(); };
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : kPairs)
    if (has(p.first) && has(p.second)) out.push_back(p);
  return out;
}

// GPU mode: writes run documents under dir/runs and returns them; table_path is set to the
// table used (quick calibration, else --table, else the selection for the GPU's chip).
std::vector<std::string> run_on_gpu(const DemoArgs& args, const std::string& atomq, std::string& table_path,
                                    std::vector<std::string>& notes) {
  const std::string runs_dir = args.output_dir + "/runs";
  make_dir(runs_dir);
  table_path = args.table;
  if (table_path.empty()) {
    const std::string quick = args.output_dir + "/table-quick.json";
    if (run_command({atomq, "calibrate", "--quick", "--no-progress", "-o", quick}) == 0) {
      table_path = quick;
      notes.push_back("Measured on this GPU just now: quick calibration (" + quick + "), then each histogram "
                      "kernel profiled in-process by `atomq hist --analyze`.");
    } else {
      spdlog::warn("quick calibration failed; using the table selected for this GPU");
    }
  }
  std::vector<std::string> documents;
  for (const auto& input : kInputs)
    for (const auto& variant : kVariants) {
      const std::string doc = runs_dir + "/" + variant + "-" + input + ".json";
      std::vector<std::string> cmd = {atomq, "hist", "--variant", variant, "--input", input, "--type", "u8",
                                      "--n", std::to_string(args.samples), "--runs", std::to_string(args.runs),
                                      "--analyze", "--analysis-output", doc};
      if (!table_path.empty()) cmd.insert(cmd.end(), {"--table", table_path});
      if (run_command(cmd) != 0) throw std::runtime_error("`atomq hist --variant " + variant + " --input " + input + "` failed");
      documents.push_back(doc);
    }
  // The multi-kernel test program sits next to atomq in a full build: it shows a kernel that
  // is bound by the atomic unit (32-way bank conflict). Optional: the demo goes on without it.
  const std::string app = atomq.substr(0, atomq.find_last_of('/') + 1) + "multi_kernel_app";
  if (std::filesystem::exists(app)) {
    const std::string doc = runs_dir + "/multi_kernel_app.json";
    std::vector<std::string> cmd = {atomq, "analyze", "-o", doc};
    if (!table_path.empty()) cmd.insert(cmd.end(), {"--table", table_path});
    cmd.insert(cmd.end(), {"--", app});
    if (run_command(cmd) == 0) documents.push_back(doc);
    else spdlog::warn("profiling {} failed; the report goes on without it", app);
  }
  return documents;
}

// The GPU the recorded profiles ran on, as their device records name it.
std::string recorded_gpu(const std::vector<report::RunDocument>& runs) {
  for (const auto& run : runs)
    for (const auto& p : run.profiles)
      if (!p.device.name.empty()) return p.device.name;
  return "a GPU the recordings do not name";
}

int run_demo(const DemoArgs& args) {
  const std::string atomq = std::filesystem::read_symlink("/proc/self/exe").string();
  make_dir(args.output_dir);
  bool replay = args.replay;
  if (!replay && run_command({atomq, "devices"}) != 0) {
    fmt::print("\nNo usable NVIDIA GPU here: replaying recorded profiles instead.\n");
    replay = true;
  }

  report::ReportRequest request;
  std::string table_path = args.table;
  if (replay) {
    const report::RecordedSet recorded = report::load_recorded_set(
        args.recorded_dir.empty() ? report::default_recorded_dir() : args.recorded_dir);
    for (const auto& path : recorded.run_paths) request.runs.push_back(report::load_run_document(path));
    request.title = "atomq demo: REPLAY of profiles recorded on " + recorded_gpu(request.runs);
    request.notes.push_back("This report replays recorded data: no GPU was used to make it. The profiles were " +
                            recorded.provenance + ". This build's model evaluated them again with the table below.");
  } else {
    std::vector<std::string> documents = run_on_gpu(args, atomq, table_path, request.notes);
    for (const auto& path : documents) request.runs.push_back(report::load_run_document(path));
    request.title = "atomq demo: histogram family measured on this GPU";
  }
  request.pairs = pairs_present(request.runs);

  const model::SelectedTable table = select_report_table(request, table_path);

  std::vector<std::string> outputs = {args.output_dir + "/report.md"};
  if (report::html_supported()) outputs.push_back(args.output_dir + "/report.html");
  else spdlog::warn("built without Chart.js (libjs-chart.js): Markdown report only");
  const report::Report built = write_reports(request, outputs);

  fmt::print("\n{}\n", replay ? "REPLAY of profiles recorded on " + recorded_gpu(request.runs) + " (no GPU used)"
                              : std::string("Measured on this GPU"));
  fmt::print("{}\n", report::render_terminal_summary(built));
  fmt::print("table: {} ({})\n", table.path, table.reason);
  print_written(stdout, outputs);
  return kExitOk;
}

}  // namespace

void add_demo_command(CLI::App& app, CommandRunner& selected) {
  auto args = std::make_shared<DemoArgs>();
  auto* sub = app.add_subcommand("demo", "the whole job: measure (or replay recorded profiles), analyze, report");
  sub->add_option("-o,--output-dir", args->output_dir, "folder for the report and the run documents")
      ->capture_default_str();
  sub->add_flag("--replay", args->replay, "replay the recorded profiles even when a GPU is present");
  sub->add_option("--recorded", args->recorded_dir, "folder of recorded runs (manifest.json; default: share/atomq/recorded)");
  sub->add_option("--table", args->table, "service-time table (default: quick calibration with a GPU, bundled without)");
  sub->add_option("--n", args->samples, "histogram samples per run (GPU mode)")->capture_default_str();
  sub->add_option("--runs", args->runs, "timed runs per histogram (GPU mode)")->capture_default_str();
  sub->callback([args, &selected] { selected = [args] { return run_demo(*args); }; });
}

}  // namespace atomq::cli
