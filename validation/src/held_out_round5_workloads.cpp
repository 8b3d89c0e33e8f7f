// Held-out round 5: energy deposited per depth bin (a Bragg-like depth profile) and the max of each
// row of scores; their inputs from fixed seeds and exact CPU references.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "held_out_round5.cuh"
#include "held_out_workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

// Depth bins: with probability `peak_share` in the 16 bins of the peak (triangular around its
// centre, bin 388), else uniform over the entrance bins before it. Energies: whole units 1..8.
constexpr std::uint32_t kPeakCentre = 388, kPeakHalfWidth = 8;

struct Deposits {
  std::vector<std::uint16_t> depth;
  std::vector<float> energy;
};

Deposits bragg_deposits(std::size_t n, double peak_share, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution in_peak(peak_share);
  std::uniform_int_distribution<std::uint32_t> entrance(0, kPeakCentre - kPeakHalfWidth - 1), half(0, kPeakHalfWidth - 1),
      units(1, 8);
  Deposits d;
  d.depth.resize(n);
  d.energy.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    // The sum of two uniform offsets: triangular over the 16 peak bins.
    const std::uint32_t bin = in_peak(rng) ? kPeakCentre - kPeakHalfWidth + half(rng) + half(rng) + 1 : entrance(rng);
    d.depth[i] = static_cast<std::uint16_t>(bin);
    d.energy[i] = static_cast<float>(units(rng));
  }
  return d;
}

// Whole units summed in double: every bin stays below 2^24, so the float of the sum is what any
// order of float adds gives.
std::vector<std::uint32_t> dose_bits(const Deposits& d) {
  std::vector<double> dose(k::kDepthBins, 0.0);
  for (std::size_t i = 0; i < d.depth.size(); ++i) dose[d.depth[i]] += d.energy[i];
  return exact_float_bits(dose, "energy_deposit");
}

constexpr KernelChoice kDepositKernels[] = {
    {"global_atomics", &k::deposit_global_handle, 256},
    {"block_private", &k::deposit_block_private_handle, 256},
    {"no_atomics", &k::deposit_no_atomics_handle, 256},
};

class DepositWorkload : public Workload {
 public:
  explicit DepositWorkload(const Deposits& d) : n_(d.depth.size()), expected_(dose_bits(d)) {
    args_ = {upload(depth_, d.depth), upload(energy_, d.energy), n_, dose_.reserve_for<float>(k::kDepthBins),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.dose, 0, k::kDepthBins * sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kDepositKernels, std::size(kDepositKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    return compare_counts(download(reinterpret_cast<const std::uint32_t*>(args_.dose), k::kDepthBins), expected_);
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer depth_, energy_, dose_, sink_;
  k::DepositArgs args_{};
};

std::vector<std::uint32_t> row_max_bits(const std::vector<float>& scores) {
  std::vector<std::uint32_t> out;
  for (std::size_t r = 0; r < scores.size() / k::kRowLength; ++r)
    out.push_back(float_bits(*std::max_element(scores.begin() + r * k::kRowLength, scores.begin() + (r + 1) * k::kRowLength)));
  return out;
}

constexpr KernelChoice kRowMaxKernels[] = {
    {"cas_loop", &k::row_max_cas_handle, 256},
    {"warp_first", &k::row_max_warp_first_handle, 256},
    {"no_atomics", &k::row_max_no_atomics_handle, 256},
};

class RowMaxWorkload : public Workload {
 public:
  explicit RowMaxWorkload(const std::vector<float>& scores)
      : rows_(scores.size() / k::kRowLength), expected_(row_max_bits(scores)) {
    args_ = {upload(scores_, scores), scores.size(), row_max_.reserve_for<float>(rows_),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override {
    const std::vector<float> start(rows_, -std::numeric_limits<float>::infinity());
    ATOMQ_CUDA(cudaMemcpy(args_.row_max, start.data(), rows_ * sizeof(float), cudaMemcpyHostToDevice));
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kRowMaxKernels, std::size(kRowMaxKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    return compare_counts(download(reinterpret_cast<const std::uint32_t*>(args_.row_max), rows_), expected_);
  }
  double useful_updates() const override { return static_cast<double>(rows_) * k::kRowLength; }

 private:
  std::size_t rows_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer scores_, row_max_, sink_;
  k::RowMaxArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_energy_deposit_workload(std::size_t n, double peak_share, std::uint64_t seed) {
  if (!(peak_share >= 0.0 && peak_share <= 1.0)) throw std::invalid_argument("energy_deposit: peak share outside [0, 1]");
  return std::make_unique<DepositWorkload>(bragg_deposits(n, peak_share, seed));
}

std::unique_ptr<Workload> make_row_max_workload(std::size_t rows, std::uint64_t seed) {
  if (rows == 0) throw std::invalid_argument("row_max_logits: at least one row");
  return std::make_unique<RowMaxWorkload>(uniform_floats(rows * k::kRowLength, seed));
}

}  // namespace atomq::validation
