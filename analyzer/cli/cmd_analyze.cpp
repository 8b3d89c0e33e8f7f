// atomq analyze [options] -- PROGRAM ARGS...   profile an unmodified program by injection
// atomq analyze --ncu-csv FILE                  analyze an ncu CSV export offline
// atomq analyze --ncu-rep FILE                  analyze an Nsight Compute report (through ncu)
// Writes the run document (JSON, atomically) and prints the report's terminal summary.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyze_args.hpp"
#include "atomq/analyzer/kernel_filter.hpp"
#include "atomq/analyzer/ncu_csv.hpp"
#include "atomq/analyzer/metric_list.hpp"
#include "atomq/analyzer/ncu_report.hpp"
#include "atomq/analyzer/nvtx_filter.hpp"
#include "atomq/common/data_dir.hpp"
#include "atomq/common/atomic_file.hpp"
#include "commands.hpp"
#include "run_report.hpp"
#include "terminal.hpp"

namespace atomq::cli {

namespace {

// Kernel function names a filter passed over, in the order first seen (at most kMaxNames kept).
struct NamesSeen {
  static constexpr size_t kMaxNames = 12;
  std::vector<std::string> names;
  long long more = 0;
  void add(const std::string& kernel_name) {
    const std::string name = analyzer::kernel_function_name(kernel_name);
    if (std::find(names.begin(), names.end(), name) != names.end()) return;
    if (names.size() < kMaxNames) names.push_back(name);
    else ++more;
  }
};

// The launches of an export that -k, -s and -c select, as the injected collector selects them:
// chosen while the export streams in, so only those are kept. The names -k passed over go to `seen`.
analyzer::NcuLaunchSelector launch_selector(const analyzer::CollectorOptions& c, std::shared_ptr<NamesSeen> seen) {
  auto filter = c.kernel_name.empty() ? nullptr : std::make_shared<analyzer::KernelFilter>(c.kernel_name);
  auto matching = std::make_shared<long long>(0);
  return [filter, matching, seen, skip = c.launch_skip, count = c.launch_count](const model::KernelProfile& p) {
    if (filter && !filter->matches(p.symbol, p.kernel_name)) {
      seen->add(p.kernel_name);
      return false;
    }
    const long long ordinal = (*matching)++;
    return ordinal >= skip && (count < 0 || ordinal < skip + count);
  };
}

// The counters atomq reads that no launch of an export holds, as one warning naming each and
// how ncu collects them ("" when none is missing).
std::string missing_counters(const std::vector<model::KernelProfile>& profiles, const std::string& source) {
  std::vector<std::string> missing;
  for (const std::string& name : analyzer::atomq_metric_names())
    if (std::none_of(profiles.begin(), profiles.end(),
                     [&name](const model::KernelProfile& p) { return p.counters.count(name) > 0; }))
      missing.push_back(name);
  if (missing.empty() || profiles.empty()) return "";
  std::string names;
  for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
  const std::optional<std::string> data = data_dir();
  // None at all: likely a details page naming metrics by their sections' labels.
  const std::string none = missing.size() < analyzer::atomq_metric_names().size()
                               ? ""
                               : " (a details page names metrics by their labels unless exported with "
                                 "--print-metric-name name; the raw page, --page raw, names them always)";
  return fmt::format("{} lacks {} of the {} counters atomq reads: {}{}. Collect them with ncu --metrics $(atomq "
                     "metrics), or with atomq's section: ncu --section-folder {} --section AtomicQueue",
                     source, missing.size(), analyzer::atomq_metric_names().size(), names, none,
                     data ? *data + "/ncu" : "PREFIX/share/atomq/ncu");
}

// `source`: what the user gave (the export, or the report it was exported from).
int run_ncu_csv(const AnalyzeArgs& a, const std::string& source) {
  if (!a.program_only_given.empty())
    throw UsageError(a.program_only_given.front() + " applies to profiling a program (-- PROGRAM), not to an ncu "
                     "export or report (already collected; -k, -s and -c select its launches)");
  try {
    refuse_output_among_inputs(a.output, {source});
  } catch (const std::runtime_error&) {
    fmt::print(stderr, "atomq: {}: is also the ncu input; writing it would replace it\n", a.output);
    return kExitError;
  }
  if (!a.table.empty()) refuse_output_among_inputs(a.output, {a.table});
  run::RunInfo info;
  info.command = source;
  info.source = "ncu_csv";
  std::vector<model::KernelProfile> profiles;
  const auto seen = std::make_shared<NamesSeen>();
  try {
    analyzer::NcuCsvImport import = analyzer::read_ncu_csv_file(a.ncu_csv, launch_selector(a.collector, seen));
    profiles = std::move(import.profiles);
    info.launches.launches_seen = import.launches_seen;
    info.launches.launches_profiled = static_cast<long long>(profiles.size());
    info.launches.launches_filtered = info.launches.launches_seen - info.launches.launches_profiled;
  } catch (const analyzer::NcuCsvError& e) {
    fmt::print(stderr, "atomq: invalid ncu export: {}\n", e.what());
    return kExitError;
  }
  // A name filter that matches nothing is a mistyped name more often than a fact: say which
  // names there were, write nothing (exit 2, as for any bad option).
  if (!a.collector.kernel_name.empty() && profiles.empty() && !seen->names.empty()) {
    std::string names;
    for (const std::string& n : seen->names) names += (names.empty() ? "" : ", ") + n;
    if (seen->more > 0) names += fmt::format(" and {} more", seen->more);
    throw UsageError(fmt::format("-k {}: matches none of the {} launch(es) of {}; their kernels: {}",
                                 a.collector.kernel_name, info.launches.launches_seen, source, names));
  }
  if (const std::string missing = missing_counters(profiles, source); !missing.empty()) info.warnings.push_back(missing);
  size_t evaluated = 0;
  const int rc = write_and_print_run(a.output, a.table, info, profiles, &evaluated);
  if (rc == kExitOk && !profiles.empty() && evaluated == 0) {  // written, and said why per kernel
    fmt::print(stderr, "atomq: no launch of {} could be evaluated (the run document says why for each)\n", source);
    return kExitError;
  }
  return rc;
}

// An Nsight Compute report: its raw page exported by ncu into a temporary file, then read as
// an export is; the run document names the report.
int run_ncu_rep(const AnalyzeArgs& a) {
  const std::filesystem::path raw =
      std::filesystem::temp_directory_path() / ("atomq-ncu-rep-" + std::to_string(getpid()) + ".csv");
  struct RemovedAtReturn {
    std::filesystem::path path;
    ~RemovedAtReturn() {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
  } remove_raw{raw};
  try {
    analyzer::export_ncu_report(a.ncu_rep, raw.string());
  } catch (const analyzer::NcuCsvError& e) {
    fmt::print(stderr, "atomq: {}\n", e.what());
    return kExitError;
  }
  AnalyzeArgs from_csv = a;
  from_csv.ncu_csv = raw.string();
  return run_ncu_csv(from_csv, a.ncu_rep);
}

int run_analyze(const AnalyzeArgs& a) {
  const int inputs = !a.ncu_csv.empty() + !a.ncu_rep.empty() + !a.program.empty();
  if (inputs != 1)
    throw UsageError(inputs == 0 ? "analyze: give --ncu-csv FILE, --ncu-rep FILE or -- PROGRAM ARGS..."
                                 : "analyze: give one of --ncu-csv FILE, --ncu-rep FILE and -- PROGRAM ARGS...");
  if (!a.ncu_rep.empty()) return run_ncu_rep(a);
  return a.ncu_csv.empty() ? run_program(a) : run_ncu_csv(a, a.ncu_csv);
}

// The launches a program's own markers select: NVTX ranges and the capture range.
void add_range_options(CLI::App* sub, analyzer::CollectorOptions& c) {
  const auto nvtx_check = [](const std::string& v) -> std::string {
    try {
      analyzer::NvtxRangePattern pattern(v);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  sub->add_option("--nvtx-include", c.nvtx_include,
                  "only launches inside this NVTX push/pop range, as ncu's: \"A/\", \"A/B/\" (B directly inside "
                  "A), \"*\" any one range, \"regex:aten::histc/\"; repeatable (any of them)")
      ->check(nvtx_check);
  sub->add_option("--nvtx-exclude", c.nvtx_exclude, "no launch inside this NVTX range (same syntax); repeatable")
      ->check(nvtx_check);
  sub->add_option_function<std::string>(
         "--profile-from-start",
         [&c](const std::string& v) { c.profile_from_start = v == "on" || v == "yes" || v == "1"; },
         "on (default) or off: off profiles only launches between cudaProfilerStart and cudaProfilerStop, as "
         "ncu's --profile-from-start off")
      ->check(CLI::IsMember({"on", "off", "yes", "no", "1", "0"}));
}

}  // namespace

void add_analyze_command(CLI::App& app, CommandRunner& selected) {
  auto [sub, args] = add_command(app, selected, "analyze",
                                 "profile a program's kernels (or read an ncu CSV export) and evaluate the model",
                                 run_analyze);
  auto& c = args->collector;
  sub->add_option("--ncu-csv", args->ncu_csv,
                  "analyze an ncu CSV export offline: `ncu --csv --print-units base --metrics $(atomq metrics)`, or "
                  "a report's raw page (`ncu --import R --csv --page raw --print-units base`)");
  sub->add_option("--ncu-rep", args->ncu_rep,
                  "analyze an Nsight Compute report (.ncu-rep) through ncu's raw page (needs ncu: on PATH, in "
                  "/usr/local/cuda/bin or at $ATOMQ_NCU)");
  sub->add_option("-o,--output", args->output, "analysis file (JSON; default atomq-analysis.json; - for standard output)");
  sub->add_option("--table", args->table, "service-time table (default: calibrated or bundled for the GPU's chip)");
  sub->add_option("-k,--kernel-name", c.kernel_name,
                  "only these kernels, as ncu's -k: NAME (the function name, or the full demangled or mangled "
                  "name) or regex:RE (searched in the mangled and demangled names)")
      ->check([](const std::string& v) -> std::string {
        try {
          analyzer::KernelFilter filter(v);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return "";
      });
  add_range_options(sub, c);
  sub->add_option("-s,--launch-skip", c.launch_skip, "skip this many matching launches first")->check(check_count);
  sub->add_option("-c,--launch-count", c.launch_count, "profile at most this many matching launches")
      ->check(check_count);
  sub->add_option("--device", c.device, "profile only launches on this CUDA device ordinal")
      ->check(CLI::Range(0, 1023));
  sub->add_flag("!--no-graph-replay", c.replay_graphs,
                "profile a CUDA graph launch in CUPTI's kernel replay (one range: its first kernel node) instead of "
                "repeating the launch once per pass from a device-memory checkpoint (a range per kernel node)");
  sub->add_flag("--sector-counters", c.sector_counters,
                "also collect the counters on request: the global sectors that price a warp merge on any traffic "
                "(docs/model.md, \"Lanes per sector\"; one more replay pass per kernel on GH100)");
  sub->add_flag("!--no-loaded-code", c.keep_loaded_code,
                "keep no copies of the modules the program loads (up to 512 MiB of its host memory): kernels "
                "outside the executable (shared libraries, run-time modules) then get no SASS hints");
  sub->add_option("--instructions", args->instructions,
                  "per-instruction counts, one more run of the program per kernel: auto (default: of the 3 "
                  "kernels with the most time, those with a CAS inside a loop: the compiler's shared loop for a "
                  "float or 64-bit atomicAdd, or a global CAS loop), N (the N kernels with atomics and the most time) or 0 (none)")
      ->check([](const std::string& v) -> std::string {
        if (v == "auto") return "";
        if (!v.empty() && v.size() <= 2 && std::all_of(v.begin(), v.end(), ::isdigit)) return "";
        return "expected auto or a count from 0 to 99";
      });
  sub->add_option("--instructions-kernel", args->instruction_regex,
                  "per-instruction counts for the kernels whose name matches this regex (RE2 syntax, searched in "
                  "the mangled and demangled names) instead; the first such kernel launched is counted by a run "
                  "beside the counters' run, which ends once it has its counts")
      ->check([](const std::string& v) -> std::string {
        try {
          analyzer::KernelFilter filter("regex:" + v);
        } catch (const std::invalid_argument& e) {
          return e.what();
        }
        return "";
      });
  sub->add_option("--instruction-launches", args->instruction_launches,
                  "launches of a kernel its per-instruction counts sum over (default 1)")
      ->check(CLI::Range(1LL, 1000000LL));
  sub->add_option("--instruction-jobs", args->instruction_jobs,
                  "per-instruction runs of the program side by side (default 4; 1: one after another and none "
                  "beside the counters' run, for a program that cannot run twice at once)")
      ->check(CLI::Range(1, 64));
  sub->add_option("program", args->program, "-- PROGRAM ARGS...");
  sub->parse_complete_callback([sub = sub, args = args] {
    for (const char* name : {"--device", "--nvtx-include", "--nvtx-exclude", "--profile-from-start", "--instructions", "--instructions-kernel",
                             "--instruction-launches",
                             "--instruction-jobs", "--no-graph-replay", "--no-loaded-code"})
      if (sub->count(name) > 0) args->program_only_given.push_back(name);
  });
}

}  // namespace atomq::cli
