// atomq analyze [options] -- PROGRAM ARGS...   profile an unmodified program by injection
// atomq analyze --ncu-csv FILE                  analyze an ncu CSV export offline
// Writes the run document (JSON, atomically) and prints one line per kernel launch.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <optional>
#include <regex>

#include <spdlog/spdlog.h>

#include "atomq/analyzer/injected_run.hpp"
#include "atomq/analyzer/instruction_join.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"  // demangle
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
  std::string instructions = "auto";  // per-instruction runs: "auto", or for this many kernels (0: none)
  std::string instruction_regex;      // or for the kernels matching this
  long long instruction_launches = 1;
  int instruction_jobs = 4;  // per-instruction runs side by side
};

// The per-instruction runs, one per symbol, `instruction_jobs` side by side. A run that fails
// beside others (e.g. the program wants most of the GPU's memory) is repeated alone.
std::vector<analyzer::InjectedRun> instruction_runs(const AnalyzeArgs& a, const std::vector<std::string>& symbols) {
  std::vector<analyzer::CollectorOptions> options;
  std::vector<std::string> streams;
  for (size_t i = 0; i < symbols.size(); ++i) {
    options.push_back(a.collector);
    options.back().instruction_symbol = symbols[i];
    options.back().instruction_launches = a.instruction_launches;
    streams.push_back(a.output + ".instructions-" + std::to_string(i) + ".jsonl");
  }
  const int jobs = std::min<int>(a.instruction_jobs, static_cast<int>(symbols.size()));
  std::vector<analyzer::InjectedRun> runs = analyzer::run_side_by_side(a.program, options, streams, jobs);
  if (jobs > 1)
    for (size_t i = 0; i < runs.size(); ++i)
      if (runs[i].instructions.empty() && runs[i].exit_code != 0) {
        spdlog::warn("the per-instruction run for {} failed beside others (exit code {}): running it alone",
                     symbols[i], runs[i].exit_code);
        runs[i] = analyzer::run_under_injection(a.program, options[i], streams[i]);
      }
  return runs;
}

// One more run of the program per kernel of interest, with per-instruction collection (one
// kernel per process: atomq/analyzer/instruction_profiler.hpp); the counts join the kernel's
// SASS and go into its profiles. Failures become warnings: the counters' analysis stands.
void collect_instructions(const AnalyzeArgs& a, const std::string& binary,
                          const std::vector<analyzer::SassFunction>& functions, analyzer::InjectedRun& r) {
  std::optional<std::regex> select;
  if (!a.instruction_regex.empty()) select = std::regex(a.instruction_regex);
  // auto: of the 3 kernels with the most time at stake, those with the compiler's shared CAS loop.
  const bool automatic = a.instructions == "auto";
  const int count = automatic ? 3 : std::stoi(a.instructions);
  const auto symbols = analyzer::kernels_for_instructions(r.profiles, count, select, automatic && !select, functions);
  if (symbols.empty()) return;
  // The call sites' lines come from the binary, not the runs: read them meanwhile.
  std::map<std::string, std::string> arch_of;  // symbol -> the arch of its listed SASS
  for (const std::string& symbol : symbols)
    for (const auto& p : r.profiles)
      if (p.symbol == symbol)
        if (const auto* f = analyzer::find_sass_function(functions, symbol, p.device.compute_capability_major,
                                                         p.device.compute_capability_minor))
          arch_of[symbol] = f->arch;
  std::set<std::string> with_sass;
  for (const auto& [symbol, arch] : arch_of) with_sass.insert(symbol);
  const std::string arch = arch_of.empty() ? "" : arch_of.begin()->second;
  auto lines_future = std::async(std::launch::async, [&] { return analyzer::source_lines(binary, with_sass, arch); });
  std::optional<std::map<std::string, analyzer::SourceLines>> lines_by_symbol;
  const std::vector<analyzer::InjectedRun> runs = instruction_runs(a, symbols);
  for (size_t i = 0; i < symbols.size(); ++i) {
    const analyzer::InjectedRun& run = runs[i];
    const std::string name = analyzer::demangle(symbols[i]);
    if (run.instructions.empty()) {
      r.info.warnings.push_back("no per-instruction counts for " + name +
                                (run.collector_error.empty() ? "" : ": " + run.collector_error));
      continue;
    }
    for (const run::InstructionsMessage& m : run.instructions) {
      if (!lines_by_symbol) lines_by_symbol = lines_future.get();
      const model::KernelProfile* profile = nullptr;
      for (const auto& p : r.profiles)
        if (p.symbol == m.symbol) profile = &p;
      const analyzer::SassFunction* function =
          profile ? analyzer::find_sass_function(functions, m.symbol, profile->device.compute_capability_major,
                                                 profile->device.compute_capability_minor)
                  : nullptr;
      if (function == nullptr)
        r.info.warnings.push_back("per-instruction counts of " + name + " without its SASS: sites not told apart");
      const auto lines = lines_by_symbol->find(m.symbol);
      analyzer::attach_instructions(
          r.profiles, m.symbol,
          analyzer::joined_with_listing(m.profile, function, lines == lines_by_symbol->end() ? nullptr : &lines->second));
    }
  }
}

int run_ncu_csv(const AnalyzeArgs& a) {
  if (same_file(a.ncu_csv, a.output)) {
    fmt::print(stderr, "atomq: {}: is also the --ncu-csv input; writing it would replace the export\n", a.output);
    return kExitError;
  }
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
  std::vector<analyzer::SassFunction> functions;
  const std::string binary = analyzer::resolve_program_path(a.program[0]);
  analyzer::fill_hints_from_binary(r.profiles, binary, &functions);
  const bool wants_instructions = a.instructions != "0" || !a.instruction_regex.empty();
  if (wants_instructions && r.exit_code != 0)  // do not run a failing program again
    r.info.warnings.push_back("no per-instruction runs: the program exited with code " + std::to_string(r.exit_code));
  else if (wants_instructions)
    collect_instructions(a, binary, functions, r);
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
