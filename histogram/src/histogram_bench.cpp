// The histogram benchmark driver (see histogram_bench.hpp). It logs, never prints.
#include "atomq/histogram/histogram_bench.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace atomq::histogram {

namespace {

struct BenchCase {
  SampleType type;
  InputSpec input;
  int bins;
  std::size_t n;
  std::vector<HistVariant> variants;
};

std::vector<BenchCase> plan(const HistBenchOptions& o) {
  std::vector<InputSpec> inputs;
  for (InputKind k : {InputKind::kUniform, InputKind::kZipf, InputKind::kHotFraction,
                      InputKind::kSingleValue}) {
    InputSpec in;  // the defaults: Zipf s = 1.1, 30% hot
    in.kind = k;
    in.seed = o.seed;
    inputs.push_back(in);
  }
  const std::vector<HistVariant> scalar = {
      HistVariant::kNaiveGlobal,    HistVariant::kBlockPrivate,   HistVariant::kBlockGridStride,
      HistVariant::kWarpReplicated, HistVariant::kLaneReplicated, HistVariant::kTwoPhase,
      HistVariant::kWarpAggregated, HistVariant::kSortRunLength,  HistVariant::kManyBins,
      HistVariant::kRankShared,     HistVariant::kRankLaneReplicated, HistVariant::kCub,
      HistVariant::kScatterAddGlobal, HistVariant::kScatterAddPrivate, HistVariant::kScatterAddPrivateInt,
      HistVariant::kBlockU64};
  const std::vector<HistVariant> image = {HistVariant::kImagePlain, HistVariant::kImageInterleaved,
                                          HistVariant::kImageLaneReplicated, HistVariant::kCub};
  const std::vector<HistVariant> many = {HistVariant::kNaiveGlobal, HistVariant::kBlockGridStride,
                                         HistVariant::kWarpAggregated, HistVariant::kSortRunLength,
                                         HistVariant::kManyBins, HistVariant::kManyBinsPacked,
                                         HistVariant::kCub};
  std::vector<BenchCase> cases;
  for (const auto& in : inputs) cases.push_back({SampleType::kU32, in, 256, o.u32_samples, scalar});
  for (const auto& in : inputs) cases.push_back({SampleType::kU8, in, 256, o.u8_samples, scalar});
  for (const auto& in : {inputs[0], inputs[3]})
    cases.push_back({SampleType::kRgba8, in, 256, o.image_pixels, image});
  for (int bins : o.many_bins)
    for (const auto& in : {inputs[0], inputs[1]})
      cases.push_back({SampleType::kU32, in, bins, o.many_bins_samples, many});
  return cases;
}

}  // namespace

HistBenchReport run_histogram_benchmark(
    HistogramRunner& runner, const HistBenchOptions& options,
    const std::function<void(int, int, const HistBenchRow&)>& progress) {
  HistBenchReport report;
  report.device = runner.device_name();
  report.runtime_version = runner.runtime_version();
  report.driver_api_version = runner.driver_version();
  report.runs = options.runs;
  report.read_bandwidth_bytes = options.bandwidth_bytes;
  report.read_bandwidth_gbs = runner.measure_read_bandwidth_gbs(options.bandwidth_bytes, options.runs);
  report.large_read_bandwidth_bytes = options.large_bandwidth_bytes;
  report.large_read_bandwidth_gbs =
      runner.measure_read_bandwidth_gbs(options.large_bandwidth_bytes, options.runs);
  spdlog::info("read bandwidth: {:.0f} GB/s ({} MiB), {:.0f} GB/s ({} MiB)", report.read_bandwidth_gbs,
               options.bandwidth_bytes >> 20, report.large_read_bandwidth_gbs,
               options.large_bandwidth_bytes >> 20);

  const std::vector<BenchCase> cases = plan(options);
  int total = 0;
  for (const auto& c : cases) total += static_cast<int>(c.variants.size());
  int done = 0;
  for (const auto& c : cases) {
    HistCase hc;
    hc.type = c.type;
    hc.input = c.input;
    hc.n = c.n;
    hc.bins = c.bins;
    runner.prepare(hc);
    const std::vector<std::uint64_t> expected = runner.reference();
    const std::size_t first_row = report.rows.size();
    double cub_ms = 0.0;
    for (HistVariant v : c.variants) {
      HistBenchRow row;
      row.type = c.type;
      row.input = describe(c.input);
      row.bins = c.bins;
      row.n = c.n;
      row.bytes = c.n * sample_bytes(c.type);
      row.variant = v;
      row.skipped = unsupported_reason(v, c.type, c.bins, c.n);
      if (row.skipped.empty()) {
        const HistRunResult result = runner.run(v);
        row.exact = result.counts.size() == expected.size() &&
                    std::equal(result.counts.begin(), result.counts.end(), expected.begin(),
                               [](std::uint32_t a, std::uint64_t b) { return a == b; });
        const PairedTiming paired = runner.time_with_input_read(v, options.runs);
        row.timing = paired.variant;
        row.input_read = paired.read;
        row.fraction_of_input_read = paired.read.median_ms / paired.variant.median_ms;
        row.gbs = static_cast<double>(row.bytes) / (row.timing.median_ms * 1e-3) / 1e9;
        row.fraction_of_read_bw = row.gbs / report.read_bandwidth_gbs;
        if (v == HistVariant::kCub) cub_ms = row.timing.median_ms;
        if (!row.exact) spdlog::error("{} on {} {}: result differs from the CPU reference",
                                      enum_name(v), enum_name(c.type), row.input);
      }
      report.rows.push_back(row);
      ++done;
      if (progress) progress(done, total, report.rows.back());
    }
    for (std::size_t i = first_row; i < report.rows.size(); ++i)
      if (report.rows[i].skipped.empty() && cub_ms > 0.0)
        report.rows[i].speedup_vs_cub = cub_ms / report.rows[i].timing.median_ms;
  }
  return report;
}

}  // namespace atomq::histogram
