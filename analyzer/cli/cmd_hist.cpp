// atomq hist: runs one histogram target on a generated input, checks it bin by bin against the
// CPU reference and reports its time (median of CUDA-event runs).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "atomq/microbench/histogram.hpp"
#include "atomq/analyzer/analysis_run.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/calibration/service_table.hpp"
#include "commands.hpp"
#include "run_report.hpp"

namespace atomq::cli {

void add_hist_bench_command(CLI::App& app, CommandRunner& selected);  // cmd_hist_bench.cpp

namespace {

namespace mb = atomq::microbench;

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
  std::string analysis_output = "atomq-hist-analysis.json";
  std::string table;
};

int run_hist(const HistOptions& o) {
  const auto variant = mb::parse_variant(o.variant);
  const auto type = mb::parse_sample_type(o.type);
  const auto kind = mb::parse_input_kind(o.input);
  if (!variant || !type || !kind) {
    fmt::print(stderr, "atomq: unknown {}\n",
               !variant ? "variant '" + o.variant + "'"
               : !type  ? "type '" + o.type + "' (u32, u8, rgba8)"
                        : "input '" + o.input + "' (uniform, zipf, hot, single, random-colour, single-colour)");
    return kExitError;
  }
  const std::string refused = mb::unsupported_reason(*variant, *type, o.bins, o.n);
  if (!refused.empty()) {
    fmt::print(stderr, "atomq: {}\n", refused);
    return kExitError;
  }
  mb::HistCase c;
  c.variant = *variant;
  c.type = *type;
  c.input.kind = *kind;
  c.input.zipf_s = o.zipf_s;
  c.input.hot_fraction = o.hot_fraction;
  c.input.seed = o.seed;
  c.n = o.n;
  c.bins = o.bins;
  c.misalign_elements = o.misalign;

  mb::HistogramRunner runner(o.device);
  runner.prepare(c);
  const std::vector<std::uint64_t> expected = runner.reference();
  const mb::HistRunResult result = runner.run(c.variant);
  std::size_t mismatches = 0, first_mismatch = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (result.counts[i] != expected[i] && mismatches++ == 0) first_mismatch = i;
  }
  const mb::HistTiming t = o.runs > 0 ? runner.time(c.variant, o.runs) : mb::HistTiming{};
  const double bytes = static_cast<double>(c.n * mb::sample_bytes(c.type));
  const double gbs = t.median_ms > 0 ? bytes / (t.median_ms * 1e-3) / 1e9 : 0.0;

  fmt::print("{} on {} {} samples, input {}, {} bins, seed {}{}\n", o.variant, c.n,
             mb::to_string(c.type), mb::describe(c.input), c.bins, c.input.seed,
             c.misalign_elements ? fmt::format(", base misaligned by {} elements", c.misalign_elements) : "");
  if (mismatches == 0) {
    fmt::print("  result     exact: all {} counters equal the CPU reference\n", expected.size());
  } else {
    fmt::print("  result     WRONG: {} of {} counters differ; first at {}: got {}, expected {}\n",
               mismatches, expected.size(), first_mismatch, result.counts[first_mismatch],
               expected[first_mismatch]);
  }
  if (o.runs > 0)
    fmt::print("  time       {:.4f} ms median of {} runs (min {:.4f}, max {:.4f}), {:.0f} GB/s of input\n",
               t.median_ms, t.runs, t.min_ms, t.max_ms, gbs);

  if (!o.json_path.empty()) {
    nlohmann::json j = {{"device", runner.device_name()},
                        {"variant", o.variant},
                        {"type", mb::to_string(c.type)},
                        {"input", mb::describe(c.input)},
                        {"seed", c.input.seed},
                        {"n", c.n},
                        {"bins", c.bins},
                        {"misalign_elements", c.misalign_elements},
                        {"exact", mismatches == 0},
                        {"mismatched_counters", mismatches},
                        {"runs", t.runs},
                        {"median_ms", t.median_ms},
                        {"min_ms", t.min_ms},
                        {"max_ms", t.max_ms},
                        {"gbs", gbs},
                        {"counts", result.counts}};
    atomq::calibration::write_file_atomically(o.json_path, j.dump(2) + "\n");
  }
  if (mismatches != 0) return kExitError;

  if (o.analyze) {
    // One more run, profiled in-process: every sample is one useful update.
    atomq::analyzer::RunInfo info;
    std::vector<atomq::model::KernelProfile> profiles =
        atomq::analyzer::profile_launches([&] { runner.run(c.variant); }, {}, &info.launches);
    for (auto& p : profiles) {
      p.useful_updates = static_cast<double>(c.n);
      p.source_detail = fmt::format("atomq hist --variant {} --input {} --n {} --bins {} --type {}", o.variant,
                                    o.input, o.n, o.bins, o.type);
    }
    info.command = profiles.empty() ? "" : profiles.front().source_detail;
    info.source = "in_process";
    fmt::print("\n");
    return write_and_print_run(o.analysis_output, o.table, info, profiles);
  }
  return kExitOk;
}

}  // namespace

void add_hist_command(CLI::App& app, CommandRunner& selected) {
  auto opts = std::make_shared<HistOptions>();
  auto* sub = app.add_subcommand("hist", "run one histogram target, check it exactly, time it");
  std::string variant_names;
  for (mb::HistVariant v : mb::all_variants())
    variant_names += (variant_names.empty() ? "" : ", ") + mb::to_string(v);
  sub->add_option("--variant", opts->variant, variant_names)
      ->capture_default_str();
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
