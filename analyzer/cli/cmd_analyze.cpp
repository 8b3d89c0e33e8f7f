// atomq analyze [options] -- PROGRAM ARGS...   profile an unmodified program by injection
// atomq analyze --ncu-csv FILE                  analyze an ncu CSV export offline
// Writes the run document (JSON, atomically) and prints one line per kernel launch.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "analyze_args.hpp"
#include "atomq/analyzer/ncu_csv.hpp"
#include "commands.hpp"
#include "run_report.hpp"
#include "terminal.hpp"

namespace atomq::cli {

namespace {

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
  sub->add_option("--instructions", args->instructions,
                  "per-instruction counts, one more run of the program per kernel: auto (default: of the 3 "
                  "kernels with the most time, those with the compiler's shared CAS loop for a float or 64-bit "
                  "atomicAdd), N (the N kernels with atomics and the most time) or 0 (none)")
      ->check([](const std::string& v) -> std::string {
        if (v == "auto") return "";
        if (!v.empty() && v.size() <= 2 && std::all_of(v.begin(), v.end(), ::isdigit)) return "";
        return "expected auto or a count from 0 to 99";
      });
  sub->add_option("--instructions-kernel", args->instruction_regex,
                  "per-instruction counts for the kernels whose name matches this regex instead");
  sub->add_option("--instruction-launches", args->instruction_launches,
                  "launches of a kernel its per-instruction counts sum over (default 1)")
      ->check(CLI::Range(1LL, 1000000LL));
  sub->add_option("--instruction-jobs", args->instruction_jobs,
                  "per-instruction runs of the program side by side (default 4; 1: one after another, for a "
                  "program that cannot run twice at once)")
      ->check(CLI::Range(1, 64));
  sub->add_option("program", args->program, "-- PROGRAM ARGS...");
}

}  // namespace atomq::cli
