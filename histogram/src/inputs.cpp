// The inputs of the histogram targets: their description, generation on the device from a
// seeded spec, and the CPU reference the runs are checked against.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "atomq/cuda/check.hpp"
#include "hist_kernels.cuh"
#include "runner_state.hpp"

namespace atomq::histogram {

namespace {

// Zipf CDF over ranks 1..bins and a seeded rank -> bin permutation (hot bins scattered).
void zipf_tables(int bins, double s, std::uint64_t seed, std::vector<double>& cdf,
                 std::vector<unsigned int>& rank_to_bin) {
  cdf.resize(bins);
  double total = 0.0;
  for (int r = 0; r < bins; ++r) total += 1.0 / std::pow(static_cast<double>(r + 1), s);
  double running = 0.0;
  for (int r = 0; r < bins; ++r) {
    running += 1.0 / std::pow(static_cast<double>(r + 1), s);
    cdf[r] = running / total;
  }
  cdf[bins - 1] = 1.0;  // u < 1 always finds a rank
  rank_to_bin.resize(bins);
  std::iota(rank_to_bin.begin(), rank_to_bin.end(), 0u);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 7);
  std::shuffle(rank_to_bin.begin(), rank_to_bin.end(), rng);
}

template <typename T>
void upload(DeviceBuffer& buffer, const std::vector<T>& host) {
  ATOMQ_CUDA(cudaMemcpy(buffer.reserve_for<T>(host.size()), host.data(), host.size() * sizeof(T),
                        cudaMemcpyHostToDevice));
}

}  // namespace

std::string describe(const InputSpec& in) {
  char buf[64];
  switch (in.kind) {
    case InputKind::kZipf: std::snprintf(buf, sizeof buf, "zipf(s=%g)", in.zipf_s); return buf;
    case InputKind::kHotFraction:
      std::snprintf(buf, sizeof buf, "hot(%g%%)", in.hot_fraction * 100.0);
      return buf;
    default: return enum_name(in.kind);
  }
}

std::size_t sample_bytes(SampleType t) { return t == SampleType::kU8 ? 1 : 4; }
int histogram_count(SampleType t) { return t == SampleType::kRgba8 ? 4 : 1; }

std::vector<std::uint64_t> reference_histogram(const void* samples, std::size_t n, SampleType t,
                                               int bins) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(histogram_count(t)) * bins, 0);
  const auto ubins = static_cast<std::uint32_t>(bins);
  if (t == SampleType::kU32) {
    const auto* s = static_cast<const std::uint32_t*>(samples);
    for (std::size_t i = 0; i < n; ++i)
      if (s[i] < ubins) ++counts[s[i]];
  } else if (t == SampleType::kU8) {
    const auto* s = static_cast<const std::uint8_t*>(samples);
    for (std::size_t i = 0; i < n; ++i)
      if (s[i] < ubins) ++counts[s[i]];
  } else {
    const auto* s = static_cast<const std::uint8_t*>(samples);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < 4; ++c) {
        const std::uint8_t v = s[4 * i + c];
        if (v < ubins) ++counts[c * bins + v];
      }
  }
  return counts;
}

void HistogramRunner::prepare(const HistCase& c) {
  if (const std::string why = case_error(c.type, c.bins); !why.empty()) throw HistogramError(why);
  if (c.misalign_elements < 0 || c.misalign_elements > 64)
    throw HistogramError("misalign_elements must be in 0..64");
  Impl& m = *impl_;
  m.prepared = c;
  const std::size_t element_bytes = c.type == SampleType::kU32 ? 4 : 1;
  const std::size_t elements = c.n * (c.type == SampleType::kRgba8 ? 4 : 1);
  constexpr std::size_t kAlignment = 256;
  m.raw.reserve(kAlignment + elements * element_bytes + c.misalign_elements * sample_bytes(c.type));
  m.counts.reserve_for<unsigned int>(static_cast<std::size_t>(histogram_count(c.type)) * c.bins);
  m.has_input = true;
  if (elements == 0) return;
  m.generate();
  spdlog::debug("generated {} {} samples ({}), bins {}, seed {}", c.n, enum_name(c.type),
                describe(c.input), c.bins, c.input.seed);
}

void HistogramRunner::Impl::generate() {
  const HistCase& c = prepared;
  kernels::GenerateArgs g{};
  g.out = const_cast<void*>(samples());
  g.element_bytes = c.type == SampleType::kU32 ? 4 : 1;
  g.channels = c.type == SampleType::kRgba8 ? 4 : 1;
  g.count = c.n * g.channels;
  g.kind = static_cast<int>(c.input.kind);
  g.bins = static_cast<unsigned int>(c.bins);
  g.hot_fraction = c.input.hot_fraction;
  std::mt19937_64 rng(c.input.seed);
  for (unsigned int& v : g.fixed_value) v = static_cast<unsigned int>(rng() % c.bins);
  g.seed = rng();
  if (c.input.kind == InputKind::kZipf) {
    std::vector<double> cdf;
    std::vector<unsigned int> perm;
    zipf_tables(c.bins, c.input.zipf_s, c.input.seed, cdf, perm);
    upload(zipf_cdf, cdf);
    upload(rank_to_bin, perm);
    g.zipf_cdf = zipf_cdf.as<double>();
    g.rank_to_bin = rank_to_bin.as<unsigned int>();
  }
  void* params[] = {&g};
  const int blocks = props.multiProcessorCount * 8;
  ATOMQ_CUDA(cudaLaunchKernel(kernels::hist_generate_handle(), dim3(blocks), dim3(256), params, 0, 0));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaDeviceSynchronize());
}

std::vector<std::uint8_t> HistogramRunner::download_samples() const {
  std::vector<std::uint8_t> host(impl_->input_bytes());
  if (!host.empty())
    ATOMQ_CUDA(cudaMemcpy(host.data(), impl_->samples(), host.size(), cudaMemcpyDeviceToHost));
  return host;
}

std::vector<std::uint64_t> HistogramRunner::reference() const {
  const std::vector<std::uint8_t> host = download_samples();
  return reference_histogram(host.data(), impl_->prepared.n, impl_->prepared.type,
                             impl_->prepared.bins);
}

}  // namespace atomq::histogram
