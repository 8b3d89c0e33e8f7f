// atomq analyze [options] -- PROGRAM ARGS...   profile an unmodified program by injection
// atomq analyze --ncu-csv FILE                  analyze an ncu CSV export offline
// Writes the run document (JSON, atomically) and prints one line per kernel launch.
#include <fmt/format.h>

#include <memory>

#include "atomq/analyzer/injected_run.hpp"
#include "atomq/analyzer/ncu_csv.hpp"
#include "atomq/analyzer/sass_hints.hpp"
#include "atomq/cuda/device_query.hpp"
#include "commands.hpp"
#include "run_report.hpp"
#include "terminal.hpp"

namespace atomq::cli {

namespace {

constexpr int kExitProfilingFailed = 4;
constexpr int kExitCannotRun = 127;  // as a shell says a command was not found

struct AnalyzeArgs {
  std::vector<std::string> program;
  std::string ncu_csv;
  std::string output = "atomq-analysis.json";
  std::string table;
  analyzer::CollectorOptions collector;
};

int run_ncu_csv(const AnalyzeArgs& a) {
  run::RunInfo info;
  info.command = a.ncu_csv;
  info.source = "ncu_csv";
  std::vector<model::KernelProfile> profiles;
  try {
    profiles = analyzer::load_ncu_csv(a.ncu_csv);
  } catch (const analyzer::NcuCsvError& e) {
    fmt::print(stderr, "atomq: invalid ncu export: {}\n", e.what());
    return kExitError;
  }
  info.launches.launches_seen = info.launches.launches_profiled = static_cast<long long>(profiles.size());
  return write_and_print_run(a.output, a.table, info, profiles);
}

int run_program(const AnalyzeArgs& a) {
  // No GPU, no driver: say so once instead of running a program that cannot be profiled.
  if (device_count() == 0) {
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: the driver sees no CUDA device\n");
    return kExitNoGpu;
  }
  analyzer::InjectedRun r = analyzer::run_under_injection(a.program, a.collector, a.output + ".profiles.jsonl");
  if (!r.exec_error.empty()) {
    fmt::print(stderr, "atomq: cannot run {}: {}\n", a.program[0], r.exec_error);
    return kExitCannotRun;
  }
  // Counters cannot tell which atomic instructions a kernel issues; the program's SASS can.
  analyzer::fill_hints_from_binary(r.profiles, analyzer::resolve_program_path(a.program[0]));
  const int rc = write_and_print_run(a.output, a.table, r.info, r.profiles);
  if (!r.collector_error.empty() && r.profiles.empty()) {
    fmt::print(stderr, "atomq: profiling failed: {}{}\n", r.collector_error,
               analyzer::collector_error_fix(r.collector_error));
    return r.exit_code != 0 ? r.exit_code : kExitProfilingFailed;
  }
  if (r.profiles.empty() && r.exit_code == 0)
    fmt::print(stderr, "atomq: the program launched no kernel that was profiled\n");
  return r.exit_code != 0 ? r.exit_code : rc;
}

int run_analyze(const AnalyzeArgs& a) {
  if (a.ncu_csv.empty() == a.program.empty()) {
    fmt::print(stderr, "atomq: give either --ncu-csv FILE or -- PROGRAM ARGS...\n");
    return kExitError;
  }
  return a.ncu_csv.empty() ? run_program(a) : run_ncu_csv(a);
}

}  // namespace

void add_analyze_command(CLI::App& app, CommandRunner& selected) {
  auto [sub, args] = add_command(app, selected, "analyze",
                                 "profile a program's kernels (or read an ncu CSV export) and evaluate the model",
                                 run_analyze);
  auto& c = args->collector;
  sub->add_option("--ncu-csv", args->ncu_csv, "analyze an `ncu --csv --metrics $(atomq metrics)` export offline");
  sub->add_option("-o,--output", args->output, "analysis file (JSON; default atomq-analysis.json)");
  sub->add_option("--table", args->table, "service-time table (default: calibrated or bundled for the GPU's chip)");
  sub->add_option("--kernel-name", c.kernel_regex, "profile only kernels whose name matches this regex");
  sub->add_option("--launch-skip", c.launch_skip, "skip this many matching launches first")->check(CLI::NonNegativeNumber);
  sub->add_option("--launch-count", c.launch_count, "profile at most this many matching launches")->check(CLI::NonNegativeNumber);
  sub->add_option("--device", c.device, "profile only launches on this CUDA device ordinal")->check(CLI::NonNegativeNumber);
  sub->add_option("program", args->program, "-- PROGRAM ARGS...");
}

}  // namespace atomq::cli
