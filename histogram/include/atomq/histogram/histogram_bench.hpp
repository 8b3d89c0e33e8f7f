// The histogram benchmark: every variant x input x sample type in one process, each case
// timed with CUDA events (median of >= 20 runs), checked exactly against the CPU reference
// once, and set against the device's read bandwidth measured in the same run and against CUB.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "atomq/histogram/histogram.hpp"

namespace atomq::histogram {

struct HistBenchOptions {
  std::size_t u32_samples = std::size_t{64} << 20;    // 256 MB
  std::size_t u8_samples = std::size_t{256} << 20;    // 256 MB
  std::size_t image_pixels = std::size_t{64} << 20;   // 256 MB
  std::size_t many_bins_samples = std::size_t{64} << 20;
  std::vector<int> many_bins = {4096, 65536};
  int runs = 21;
  std::uint64_t seed = 20260501;
  // The ceiling: a read of as many bytes as each input (256 MB by default; every case here has
  // one size), plus a large read for reference.
  std::size_t bandwidth_bytes = std::size_t{256} << 20;
  std::size_t large_bandwidth_bytes = std::size_t{1} << 30;
};

struct HistBenchRow {
  SampleType type = SampleType::kU32;
  std::string input;  // describe(InputSpec)
  int bins = 0;
  std::size_t n = 0;
  std::size_t bytes = 0;
  HistVariant variant = HistVariant::kCub;
  std::string skipped;  // non-empty: why this variant does not run this case
  HistTiming timing;
  double gbs = 0.0;                 // input bytes / median time
  double fraction_of_read_bw = 0.0;  // gbs / the report's read_bandwidth_gbs
  HistTiming input_read;            // the probe reading this input, run by run between the variant's runs
  double fraction_of_input_read = 0.0;  // input_read median / this median
  double speedup_vs_cub = 0.0;      // CUB median / this median (same case)
  bool exact = false;               // equal to the CPU reference, bin by bin
};

struct HistBenchReport {
  std::string device;
  int runtime_version = 0;
  int driver_api_version = 0;
  double read_bandwidth_gbs = 0.0;  // reading bandwidth_bytes
  std::size_t read_bandwidth_bytes = 0;
  double large_read_bandwidth_gbs = 0.0;
  std::size_t large_read_bandwidth_bytes = 0;
  int runs = 0;
  std::vector<HistBenchRow> rows;
};

// progress(done, total, row) after each row.
HistBenchReport run_histogram_benchmark(
    HistogramRunner& runner, const HistBenchOptions& options,
    const std::function<void(int, int, const HistBenchRow&)>& progress = {});

}  // namespace atomq::histogram
