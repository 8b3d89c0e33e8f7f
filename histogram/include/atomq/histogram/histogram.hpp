// Histogram targets: the family of histogram kernels atomq ships as built-in targets, the
// GPU input generators they run on, a CPU reference and a benchmark driver. The variants and
// what each takes are listed once, in variant_policy.hpp.
// No CUDA header here, so the CLI and the tests stay plain C++.
//
// Semantics shared by every variant: a sample whose value v is below `bins` adds one to bin v;
// larger values are dropped (as CUB's HistogramEven with levels 0..bins does). A 4-channel
// image (SampleType::kRgba8) has one histogram per channel: counts[c * bins + v].
// Counters are 32-bit; a case with n >= 2^32 samples per histogram is refused with
// HistogramError, so no bin can wrap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/common/enum_names.hpp"
#include "atomq/histogram/variant_policy.hpp"

namespace atomq::histogram {

class HistogramError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Aliases follow the names: enum_name gives the first entry of a value, parse_enum takes any.
enum class InputKind {
  kUniform,      // every bin equally likely (random-colour image for kRgba8)
  kZipf,         // P(rank r) ~ 1 / r^s, ranks mapped to bins by a seeded permutation
  kHotFraction,  // a seeded hot bin takes `hot_fraction` of the samples, the rest uniform
  kSingleValue,  // every sample is one seeded value (single-colour image for kRgba8)
};
constexpr std::array<EnumName<InputKind>, 7> enum_names(InputKind) {
  return {{{InputKind::kUniform, "uniform"},
           {InputKind::kZipf, "zipf"},
           {InputKind::kHotFraction, "hot"},
           {InputKind::kSingleValue, "single"},
           {InputKind::kUniform, "random"},
           {InputKind::kUniform, "random-colour"},
           {InputKind::kSingleValue, "single-colour"}}};
}

struct InputSpec {
  InputKind kind = InputKind::kUniform;
  double zipf_s = 1.1;
  double hot_fraction = 0.3;
  std::uint64_t seed = 1;
};

struct HistCase {
  HistVariant variant = HistVariant::kLaneReplicated;
  SampleType type = SampleType::kU32;
  InputSpec input;
  std::size_t n = 0;          // samples (pixels for kRgba8)
  int bins = 256;             // per histogram (per channel for kRgba8)
  int misalign_elements = 0;  // start the samples this many elements past a 256-byte boundary
};

std::string describe(const InputSpec& in);  // e.g. "zipf(s=1.1)"
std::size_t sample_bytes(SampleType t);  // bytes per sample (per pixel for kRgba8)
int histogram_count(SampleType t);       // 4 for kRgba8, else 1

// Empty when the variant runs this case; otherwise why it is refused (device-independent,
// from the variant's row of kVariantPolicies).
std::string unsupported_reason(HistVariant v, SampleType t, int bins, std::size_t n);

// Counts on the CPU from host samples (uint64, so the reference itself cannot wrap).
std::vector<std::uint64_t> reference_histogram(const void* samples, std::size_t n, SampleType t,
                                               int bins);

struct HistRunResult {
  std::vector<std::uint32_t> counts;  // histogram_count(type) * bins
};

struct HistTiming {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int runs = 0;
};

// A variant's runs and, alternating with them, reads of the same input by the read-bandwidth
// probe: the two see the same clocks, data and size.
struct PairedTiming {
  HistTiming variant;
  HistTiming read;
};

// Owns one device input (generated on the GPU from its spec) and the buffers the variants use.
class HistogramRunner {
 public:
  explicit HistogramRunner(int device);
  ~HistogramRunner();
  HistogramRunner(const HistogramRunner&) = delete;
  HistogramRunner& operator=(const HistogramRunner&) = delete;

  // Generates the input of `c` on the GPU (kept until the next prepare with other data).
  void prepare(const HistCase& c);
  // Samples as they lie on the device (for the CPU reference).
  std::vector<std::uint8_t> download_samples() const;
  std::vector<std::uint64_t> reference() const;

  // Runs the variant once on the prepared input; throws HistogramError when unsupported.
  HistRunResult run(HistVariant v);
  // Median of `runs` timed runs (CUDA events), after one warm-up.
  HistTiming time(HistVariant v, int runs);
  // The same, each run preceded by a timed read of the input (16-byte loads, no histogram).
  PairedTiming time_with_input_read(HistVariant v, int runs);

  // Read bandwidth of this device: a 16-byte-load streaming read of `bytes`, median of runs.
  double measure_read_bandwidth_gbs(std::size_t bytes, int runs);

  std::string device_name() const;
  int driver_version() const;
  int runtime_version() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::histogram
