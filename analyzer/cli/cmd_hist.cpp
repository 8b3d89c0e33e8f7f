// atomq hist: runs one histogram target on a generated input, checks it bin by bin against the
// CPU reference and reports its time (median of CUDA-event runs).
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/analyzer/sass_hints.hpp"
#include "atomq/common/atomic_file.hpp"
#include "atomq/cuda/device_query.hpp"
#include "atomq/histogram/histogram.hpp"
#include "commands.hpp"
#include "run_report.hpp"

namespace atomq::cli {

void add_hist_bench_command(CLI::App& app, CommandRunner& selected);  // cmd_hist_bench.cpp

namespace {

namespace hg = atomq::histogram;

struct HistOptions {
  std::string variant = "lane_replicated";
  std::string input = "uniform";
  std::string type = "u32";
  std::size_t n = std::size_t{64} << 20;
  int bins = 256;
  double zipf_s = 1.1;
  double hot_fraction = 0.3;
  std::uint64_t seed = 1;
  int misalign = 0;
  int runs = 21;
  int device = 0;
  std::string json_path;
  bool analyze = false;
  bool list = false;
  std::string analysis_output = "atomq-hist-analysis.json";
  std::string table;
};

// The case the options name; nullopt (after saying why on stderr) when a name is unknown or
// the variant refuses the case.
std::optional<hg::HistCase> parse_case(const HistOptions& o) {
  const auto variant = parse_enum<hg::HistVariant>(o.variant);
  const auto type = parse_enum<hg::SampleType>(o.type);
  const auto kind = parse_enum<hg::InputKind>(o.input);
  if (!variant || !type || !kind) {
    fmt::print(stderr, "atomq: unknown {}\n",
               !variant ? "variant '" + o.variant + "'"
               : !type  ? "type '" + o.type + "' (u32, u8, rgba8)"
                        : "input '" + o.input + "' (uniform, zipf, hot, single, random-colour, single-colour)");
    return std::nullopt;
  }
  if (const std::string refused = hg::unsupported_reason(*variant, *type, o.bins, o.n); !refused.empty()) {
    fmt::print(stderr, "atomq: {}\n", refused);
    return std::nullopt;
  }
  hg::HistCase c;
  c.variant = *variant;
  c.type = *type;
  c.input = {*kind, o.zipf_s, o.hot_fraction, o.seed};
  c.n = o.n;
  c.bins = o.bins;
  c.misalign_elements = o.misalign;
  return c;
}

struct HistOutcome {
  std::size_t counters = 0;
  std::size_t mismatches = 0;
  std::size_t first_mismatch = 0;
  hg::HistRunResult result;
  std::vector<std::uint64_t> expected;
  hg::HistTiming timing;
  double gbs = 0.0;
};

HistOutcome run_and_check(hg::HistogramRunner& runner, const hg::HistCase& c, int runs) {
  HistOutcome out;
  runner.prepare(c);
  out.expected = runner.reference();
  out.result = runner.run(c.variant);
  out.counters = out.expected.size();
  for (std::size_t i = 0; i < out.expected.size(); ++i) {
    if (out.result.counts[i] != out.expected[i] && out.mismatches++ == 0) out.first_mismatch = i;
  }
  out.timing = runs > 0 ? runner.time(c.variant, runs) : hg::HistTiming{};
  const double bytes = static_cast<double>(c.n * hg::sample_bytes(c.type));
  out.gbs = out.timing.median_ms > 0 ? bytes / (out.timing.median_ms * 1e-3) / 1e9 : 0.0;
  return out;
}

void print_outcome(const HistOptions& o, const hg::HistCase& c, const HistOutcome& r) {
  fmt::print("{} on {} {} samples, input {}, {} bins, seed {}{}\n", o.variant, c.n,
             enum_name(c.type), hg::describe(c.input), c.bins, c.input.seed,
             c.misalign_elements ? fmt::format(", base misaligned by {} elements", c.misalign_elements) : "");
  if (r.mismatches == 0) {
    fmt::print("  result     exact: all {} counters equal the CPU reference\n", r.counters);
  } else {
    fmt::print("  result     WRONG: {} of {} counters differ; first at {}: got {}, expected {}\n",
               r.mismatches, r.counters, r.first_mismatch, r.result.counts[r.first_mismatch],
               r.expected[r.first_mismatch]);
  }
  const hg::HistTiming& t = r.timing;
  if (o.runs > 0)
    fmt::print("  time       {:.4f} ms median of {} runs (min {:.4f}, max {:.4f}), {:.0f} GB/s of input\n",
               t.median_ms, t.runs, t.min_ms, t.max_ms, r.gbs);
}

void write_outcome_json(const std::string& path, const std::string& device, const HistOptions& o,
                        const hg::HistCase& c, const HistOutcome& r) {
  nlohmann::json j = {{"device", device},
                      {"variant", o.variant},
                      {"type", enum_name(c.type)},
                      {"input", hg::describe(c.input)},
                      {"seed", c.input.seed},
                      {"n", c.n},
                      {"bins", c.bins},
                      {"misalign_elements", c.misalign_elements},
                      {"exact", r.mismatches == 0},
                      {"mismatched_counters", r.mismatches},
                      {"runs", r.timing.runs},
                      {"median_ms", r.timing.median_ms},
                      {"min_ms", r.timing.min_ms},
                      {"max_ms", r.timing.max_ms},
                      {"gbs", r.gbs},
                      {"counts", r.result.counts}};
  write_file_atomically(path, json_text(j, 2) + "\n");
}

// One more run, profiled in-process: every sample is one useful update.
int analyze_one_run(const HistOptions& o, const hg::HistCase& c, hg::HistogramRunner& runner) {
  run::RunInfo info;
  std::vector<atomq::model::KernelProfile> profiles =
      atomq::analyzer::profile_launches([&] { runner.run(c.variant); }, {}, &info.launches);
  // The kernels are this executable's: its SASS says which atomic instructions they issue. The
  // link is resolved here: in cuobjdump's process /proc/self/exe would be cuobjdump.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  atomq::analyzer::fill_hints_from_binary(profiles, ec ? "" : self.string());
  const double dram_peak = describe_device(o.device).dram_peak_bytes_per_s;
  for (auto& p : profiles) {
    p.useful_updates = static_cast<double>(c.n);
    if (p.device.dram_peak_bytes_per_s <= 0) p.device.dram_peak_bytes_per_s = dram_peak;
    p.source_detail = fmt::format("atomq hist --variant {} --input {} --n {} --bins {} --type {}", o.variant,
                                  o.input, o.n, o.bins, o.type);
  }
  info.command = profiles.empty() ? "" : profiles.front().source_detail;
  info.source = "in_process";
  fmt::print("\n");
  return write_and_print_run(o.analysis_output, o.table, info, profiles);
}

// `atomq hist --list`: the variant table, one variant a line (no GPU needed).
int list_variants() {
  fmt::print("{:<22} {:>7} {:<12} {:>8} {}\n", "variant", "threads", "types", "max bins", "cluster");
  for (const hg::VariantPolicy& p : hg::kVariantPolicies) {
    std::string types;
    for (hg::SampleType t : {hg::SampleType::kU32, hg::SampleType::kU8, hg::SampleType::kRgba8})
      if (hg::takes(p, t)) types += (types.empty() ? "" : ",") + enum_name(t);
    const char* cluster = p.cluster == hg::ClusterUse::kSplitBins ? "split bins"
                          : p.cluster == hg::ClusterUse::kBestFit ? "best fit"
                                                                  : "-";
    fmt::print("{:<22} {:>7} {:<12} {:>8} {}\n", p.name, p.threads > 0 ? std::to_string(p.threads) : "cub",
               types, p.bins.max, cluster);
  }
  return kExitOk;
}

int run_hist(const HistOptions& o) {
  if (o.list) return list_variants();
  const std::optional<hg::HistCase> c = parse_case(o);
  if (!c) return kExitError;
  hg::HistogramRunner runner(o.device);
  const HistOutcome outcome = run_and_check(runner, *c, o.runs);
  print_outcome(o, *c, outcome);
  if (!o.json_path.empty()) write_outcome_json(o.json_path, runner.device_name(), o, *c, outcome);
  if (outcome.mismatches != 0) return kExitError;
  return o.analyze ? analyze_one_run(o, *c, runner) : kExitOk;
}

}  // namespace

void add_hist_command(CLI::App& app, CommandRunner& selected) {
  auto opts = std::make_shared<HistOptions>();
  auto* sub = app.add_subcommand("hist", "run one histogram target, check it exactly, time it");
  sub->add_option("--variant", opts->variant, enum_name_list<hg::HistVariant>(false))
      ->capture_default_str();
  sub->add_flag("--list", opts->list, "list the variants: block size, sample types, largest bins, clusters");
  sub->add_option("--input", opts->input,
                  "uniform, zipf, hot, single (images: random-colour, single-colour)")
      ->capture_default_str();
  sub->add_option("--n", opts->n, "samples (pixels for rgba8)")->capture_default_str();
  sub->add_option("--bins", opts->bins, "bins per histogram")->capture_default_str();
  sub->add_option("--type", opts->type, "u32, u8 or rgba8 (4-channel image)")->capture_default_str();
  sub->add_option("--zipf-s", opts->zipf_s, "Zipf exponent")->capture_default_str();
  sub->add_option("--hot-fraction", opts->hot_fraction, "share of samples in the hot bin")
      ->capture_default_str();
  sub->add_option("--seed", opts->seed, "input seed")->capture_default_str();
  sub->add_option("--misalign", opts->misalign, "start the samples this many elements off a 256-byte boundary")
      ->capture_default_str();
  sub->add_option("--runs", opts->runs, "timed runs (0: check only)")->capture_default_str();
  sub->add_option("--device", opts->device, "CUDA device ordinal")->capture_default_str();
  sub->add_option("--json", opts->json_path, "also write the result as JSON");
  sub->add_flag("--analyze", opts->analyze, "profile one more run in-process (CUPTI) and evaluate the model");
  sub->add_option("--analysis-output", opts->analysis_output, "analysis file for --analyze")->capture_default_str();
  sub->add_option("--table", opts->table, "service-time table for --analyze (default: for the GPU's chip)");
  sub->callback([&selected, opts] { selected = [opts] { return run_hist(*opts); }; });
  add_hist_bench_command(app, selected);
}

}  // namespace atomq::cli
