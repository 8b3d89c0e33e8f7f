// atomq analyze [options] -- PROGRAM ARGS...: profile an unmodified program by injection,
// with per-instruction runs for the kernels of interest (CUDA builds only).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <optional>
#include <set>

#include "analyze_args.hpp"
#include "atomq/analyzer/injected_run.hpp"
#include "atomq/analyzer/instruction_join.hpp"
#include "atomq/analyzer/kernel_filter.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"  // demangle
#include "atomq/analyzer/loaded_code.hpp"
#include "atomq/analyzer/sass_hints.hpp"
#include "atomq/analyzer/cupti_device.hpp"
#include "atomq/cuda/device_query.hpp"
#include "commands.hpp"
#include "run_report.hpp"

namespace atomq::cli {

namespace {

constexpr int kExitProfilingFailed = 4;
constexpr int kExitCannotRun = 127;  // as a shell says a command was not found

// The per-instruction runs, one per symbol, `instruction_jobs` side by side. Each ends its
// program once it has the kernel's counts (the counters' run already ran it whole) and writes
// the program's output to OUTPUT.instructions-N.log, not the terminal. A run that fails beside
// others (e.g. the program wants most of the GPU's memory) is repeated alone.
std::vector<analyzer::InjectedRun> instruction_runs(const AnalyzeArgs& a, const std::vector<std::string>& symbols) {
  std::vector<analyzer::CollectorOptions> options;
  std::vector<std::string> streams, logs;
  for (size_t i = 0; i < symbols.size(); ++i) {
    options.push_back(a.collector);
    options.back().instruction_symbol = symbols[i];
    options.back().instruction_launches = a.instruction_launches;
    options.back().stop_after_instructions = true;
    streams.push_back(a.output + ".instructions-" + std::to_string(i) + ".jsonl");
    logs.push_back(a.output + ".instructions-" + std::to_string(i) + ".log");
  }
  const int jobs = std::min<int>(a.instruction_jobs, static_cast<int>(symbols.size()));
  std::vector<analyzer::InjectedRun> runs = analyzer::run_side_by_side(a.program, options, streams, jobs, logs);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].instructions.empty() || runs[i].exit_code == 0) continue;
    if (jobs > 1) {
      spdlog::warn("the per-instruction run for {} failed beside others (exit code {}): running it alone",
                   symbols[i], runs[i].exit_code);
      runs[i] = analyzer::run_side_by_side(a.program, {options[i]}, {streams[i]}, 1, {logs[i]}).front();
    }
    if (runs[i].instructions.empty() && runs[i].exit_code != 0)
      spdlog::warn("the per-instruction run for {} exited with code {}: its output is in {}", symbols[i],
                   runs[i].exit_code, logs[i]);
  }
  return runs;
}

// One kernel's per-instruction run joined with its SASS and attached to its launches: measured on
// the launch(es) it counted (one message per process that launched the kernel), derived on the others.
void attach_run(const analyzer::InjectedRun& run, const std::string& symbol,
                const std::vector<analyzer::SassFunction>& functions, const analyzer::SourceLines* lines,
                analyzer::InjectedRun& r) {
  const model::KernelProfile* profile = nullptr;
  for (const auto& p : r.profiles)
    if (p.symbol == symbol) profile = &p;
  const analyzer::SassFunction* function =
      profile ? analyzer::find_sass_function(functions, symbol, profile->device.compute_capability_major,
                                             profile->device.compute_capability_minor)
              : nullptr;
  if (function == nullptr)
    r.info.warnings.push_back("per-instruction counts of " + analyzer::demangle(symbol) +
                              " without its SASS: sites not told apart");
  std::vector<model::MeasuredInstructions> measured;
  for (const run::InstructionsMessage& m : run.instructions)
    if (m.symbol == symbol) measured.push_back({analyzer::joined_with_listing(m.profile, function, lines), m.process});
  analyzer::attach_instructions(r.profiles, symbol, measured);
}

// The counters' run, and with a kernel named for per-instruction counts (and runs side by side
// allowed) a per-instruction run of the first kernel it selects beside it: that run ends once
// it has the counts, and the counters' run waits for it before its first profiled launch, so
// neither's GPU work runs during the other's measurements (docs/analyzer.md, "Overhead").
struct CountersRun {
  analyzer::InjectedRun counters;
  std::optional<analyzer::InjectedRun> beside;  // the per-instruction run beside it
};

CountersRun run_counters(const AnalyzeArgs& a, const analyzer::CollectorOptions& collector, const std::string& stream) {
  CountersRun out;
  if (a.instruction_regex.empty() || a.instruction_jobs < 2 || a.instructions == "0") {
    out.counters = analyzer::run_under_injection(a.program, collector, stream);
    return out;
  }
  const std::string gate = a.output + ".gpu-gate";
  std::error_code ec;
  std::filesystem::remove(gate, ec);
  analyzer::CollectorOptions instructions = a.collector;
  instructions.instruction_kernel = "regex:" + a.instruction_regex;
  instructions.instruction_launches = a.instruction_launches;
  instructions.stop_after_instructions = true;
  instructions.gpu_gate = gate;
  analyzer::CollectorOptions counters = collector;
  counters.gpu_gate = gate;
  const std::string beside_stream = a.output + ".instructions-beside.jsonl";
  std::vector<analyzer::InjectedRun> runs = analyzer::run_side_by_side(
      a.program, {instructions, counters}, {beside_stream, stream}, 2, {a.output + ".instructions-beside.log", ""});
  std::filesystem::remove(gate, ec);
  out.beside = std::move(runs[0]);
  out.counters = std::move(runs[1]);
  if (out.counters.exec_error.empty() && out.counters.exit_code != 0) {
    spdlog::warn("the program exited with code {} beside a per-instruction run: running it again alone",
                 out.counters.exit_code);
    out.counters = analyzer::run_under_injection(a.program, collector, stream);
  }
  return out;
}

// One more run of the program per kernel of interest, with per-instruction collection (one
// kernel per process: atomq/analyzer/instruction_profiler.hpp); the counts join the kernel's
// SASS and go into its profiles. Failures become warnings: the counters' analysis stands.
// Returns how many runs it made.
size_t collect_instructions(const AnalyzeArgs& a, const std::string& binary,
                            const std::vector<analyzer::SassFunction>& functions,
                            const std::optional<analyzer::InjectedRun>& beside, analyzer::InjectedRun& r) {
  std::optional<analyzer::KernelFilter> select;
  if (!a.instruction_regex.empty()) select.emplace("regex:" + a.instruction_regex);
  // auto: of the 3 kernels with the most time at stake, those with a CAS loop (shared or global).
  const bool automatic = a.instructions == "auto";
  const int count = automatic ? 3 : std::stoi(a.instructions);
  const auto chosen = analyzer::kernels_for_instructions(r.profiles, count, select, automatic && !select, functions);
  // A kernel the run beside the counters' measured needs no run of its own.
  std::vector<std::string> symbols;
  std::optional<std::string> measured_beside;
  if (beside && !beside->instructions.empty()) measured_beside = beside->instructions.front().symbol;
  for (const std::string& symbol : chosen)
    if (symbol != measured_beside) symbols.push_back(symbol);
  if (measured_beside && std::find(chosen.begin(), chosen.end(), *measured_beside) == chosen.end())
    measured_beside.reset();  // not among the kernels of interest
  if (symbols.empty() && !measured_beside) return 0;
  std::vector<std::string> all = symbols;  // every kernel of interest, measured beside or to run now
  if (measured_beside) all.push_back(*measured_beside);
  // The call sites' lines come from the binary, not the runs: read them meanwhile.
  std::map<std::string, std::string> arch_of;  // symbol -> the arch of its listed SASS
  for (const std::string& symbol : all)
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
  std::vector<analyzer::InjectedRun> runs = instruction_runs(a, symbols);
  if (measured_beside) runs.push_back(*beside);
  for (size_t i = 0; i < all.size(); ++i) {
    const analyzer::InjectedRun& run = runs[i];
    const std::string name = analyzer::demangle(all[i]);
    if (run.instructions.empty()) {
      r.info.warnings.push_back("no per-instruction counts for " + name +
                                (run.collector_error.empty() ? "" : ": " + run.collector_error));
      continue;
    }
    if (!lines_by_symbol) lines_by_symbol = lines_future.get();
    const auto lines = lines_by_symbol->find(all[i]);
    attach_run(run, all[i], functions, lines == lines_by_symbol->end() ? nullptr : &lines->second, r);
  }
  return symbols.size();
}

// Where an analyze run's wall time went, printed with -v (docs/analyzer.md, "Time budget"):
// each stage's seconds, with a detail where there is one.
class TimeBudget {
 public:
  // The time since the previous stage (or the start) goes to `name`.
  void stage(const std::string& name, const std::string& detail = "") {
    const auto now = std::chrono::steady_clock::now();
    stages_.push_back({name, std::chrono::duration<double>(now - last_).count(), detail});
    last_ = now;
  }

  void log() const {
    double total = 0;
    std::string text;
    for (const Stage& s : stages_) {
      total += s.seconds;
      text += fmt::format("{}{} {:.2f} s", text.empty() ? "" : "; ", s.name, s.seconds);
      if (!s.detail.empty()) text += " (" + s.detail + ")";
    }
    spdlog::info("time budget, {:.2f} s in all: {}", total, text);
  }

 private:
  struct Stage {
    std::string name;
    double seconds;
    std::string detail;
  };
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::vector<Stage> stages_;
};

// What the collector measured inside the program's run of `seconds` (its stats message).
std::string collector_time(const run::SessionStats& c, double seconds) {
  const double inside = c.seconds_in_launches + c.seconds_configuring + c.seconds_keeping_code;
  return fmt::format("its launches {:.2f} s: {} profiled, {} replay pass(es) each; counter configurations {:.2f} s; "
                     "keeping loaded code {:.2f} s; the rest, the program's own start, work and exit, {:.2f} s",
                     c.seconds_in_launches, c.launches_profiled, c.passes, c.seconds_configuring,
                     c.seconds_keeping_code, std::max(0.0, seconds - inside));
}

}  // namespace

int run_program(const AnalyzeArgs& a) {
  // No GPU, no driver: say so once instead of running a program that cannot be profiled.
  if (device_count() == 0) {
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: the driver sees no CUDA device\n");
    return kExitNoGpu;
  }
  const std::string stream = a.output + ".profiles.jsonl";
  const std::string code_directory = analyzer::loaded_code_directory(stream);
  std::error_code ec;
  std::filesystem::remove_all(code_directory, ec);  // a previous run's
  struct RemovedAtReturn {  // the saved code objects are read once, whatever happens after
    std::string path;
    ~RemovedAtReturn() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } remove_code{code_directory};
  analyzer::CollectorOptions collector = a.collector;
  if (collector.keep_loaded_code && !analyzer::find_cuobjdump()) {
    spdlog::info("no copies of loaded modules: cuobjdump, which would read them, is not found");
    collector.keep_loaded_code = false;
  }
  TimeBudget budget;
  const auto started = std::chrono::steady_clock::now();
  CountersRun counters_run = run_counters(a, collector, stream);
  analyzer::InjectedRun& r = counters_run.counters;
  std::string beside_detail;
  if (counters_run.beside)
    beside_detail = counters_run.beside->instructions.empty()
                        ? "; beside it a per-instruction run that counted no kernel"
                        : "; beside it the per-instruction run of " +
                              analyzer::demangle(counters_run.beside->instructions.front().symbol) +
                              ", ended once counted";
  budget.stage("the program under the collector",
               collector_time(r.info.launches,
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()) +
                   beside_detail);
  if (!r.exec_error.empty()) {
    fmt::print(stderr, "atomq: cannot run {}: {}\n", a.program[0], r.exec_error);
    return kExitCannotRun;
  }
  // Counters cannot tell which atomic instructions a kernel issues; the program's SASS can.
  std::vector<analyzer::SassFunction> functions;
  const std::string binary = analyzer::resolve_program_path(a.program[0]);
  analyzer::fill_hints_from_binary(r.profiles, binary, &functions);
  budget.stage("SASS of the executable");
  analyzer::fill_hints_from_loaded_code(r.profiles, code_directory, functions);
  budget.stage("SASS of loaded code");
  analyzer::fill_dram_peak(r.profiles);
  const bool wants_instructions = a.instructions != "0" || !a.instruction_regex.empty();
  if (wants_instructions && r.exit_code != 0)  // do not run a failing program again
    r.info.warnings.push_back("no per-instruction runs: the program exited with code " + std::to_string(r.exit_code));
  size_t instruction_runs = 0;
  if (wants_instructions && r.exit_code == 0)
    instruction_runs = collect_instructions(a, binary, functions, counters_run.beside, r);
  budget.stage("per-instruction runs", fmt::format("{} run(s) of the program", instruction_runs));
  const int rc = write_and_print_run(a.output, a.table, r.info, r.profiles);
  budget.stage("analysis, run document and terminal output");
  budget.log();
  if (!r.collector_error.empty() && r.profiles.empty()) {
    fmt::print(stderr, "atomq: profiling failed: {}{}\n", r.collector_error,
               analyzer::collector_error_fix(r.collector_error));
    return r.exit_code != 0 ? r.exit_code : kExitProfilingFailed;
  }
  if (r.profiles.empty() && r.exit_code == 0)
    fmt::print(stderr, "atomq: the program launched no kernel that was profiled{}\n",
               a.collector.nvtx_include.empty()
                   ? ""
                   : fmt::format(" ({} launch(es) not selected by the filters; a launch sees only the NVTX "
                                 "ranges that reach atomq through NVTX_INJECTION64_PATH, which analyze sets to "
                                 "its injection library unless the program's environment sets it)",
                                 r.info.launches.launches_filtered));
  return r.exit_code != 0 ? r.exit_code : rc;
}

}  // namespace atomq::cli
