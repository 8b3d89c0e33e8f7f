// Workloads with their own outputs: hash-table build, float histogram, spin-locked counter,
// and the threshold sweep.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <iterator>
#include <map>
#include <numeric>

#include "validation_kernels.cuh"
#include "workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kHashKernels[] = {
    {"cas_probe", &k::hash_cas_probe_handle, 256},
    {"load_then_cas", &k::hash_load_then_cas_handle, 256},
    {"no_atomics", &k::hash_no_atomics_handle, 256},
};

class HashWorkload : public Workload {
 public:
  HashWorkload(const std::vector<std::uint32_t>& keys, std::uint32_t capacity) : n_(keys.size()), capacity_(capacity) {
    for (std::uint32_t key : keys) ++expected_[key];
    args_ = {upload(keys_, keys), n_, slot_keys_.reserve_for<std::uint32_t>(capacity),
             slot_counts_.reserve_for<std::uint32_t>(capacity), capacity - 1u, sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override {
    ATOMQ_CUDA(cudaMemset(args_.slot_keys, 0xFF, capacity_ * sizeof(std::uint32_t)));
    ATOMQ_CUDA(cudaMemset(args_.slot_counts, 0, capacity_ * sizeof(std::uint32_t)));
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kHashKernels, std::size(kHashKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    const auto keys = download(args_.slot_keys, capacity_);
    const auto counts = download(args_.slot_counts, capacity_);
    std::map<std::uint32_t, std::uint32_t> got;
    for (std::uint32_t s = 0; s < capacity_; ++s)
      if (keys[s] != k::kEmptyKey && !got.emplace(keys[s], counts[s]).second)
        return {true, false, fmt::format("key {:#x} stored twice", keys[s])};
    VariantCheck r{true, got == expected_, ""};
    r.detail = r.exact ? fmt::format("all {} keys with their counts", got.size())
                       : fmt::format("{} keys stored, {} expected (or counts differ)", got.size(), expected_.size());
    return r;
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t capacity_;
  std::map<std::uint32_t, std::uint32_t> expected_;
  DeviceBuffer keys_, slot_keys_, slot_counts_, sink_;
  k::HashArgs args_{};
};

constexpr KernelChoice kFloatKernels[] = {
    {"shared_float_atomics", &k::float_hist_shared_handle, 256},
    {"fixed_point_integer", &k::float_hist_fixed_point_handle, 256},
    {"no_atomics", &k::float_hist_no_atomics_handle, 256},
};

class FloatHistWorkload : public Workload {
 public:
  FloatHistWorkload(const std::vector<float>& values, std::uint32_t bins)
      : n_(values.size()), bins_(bins), sums_(bins, 0.0), fixed_(bins, 0ull) {
    // A shared fixed-point word holds 2^20 weights: more than a block of a persistent grid
    // (at least one block per SM, 132 SMs or more here) sees.
    if (n_ > (std::size_t{1} << 20) * 132) throw std::invalid_argument("float histogram: too many values");
    for (float x : values) {
      const std::uint32_t b = std::min(static_cast<std::uint32_t>(x * bins), bins - 1u);
      sums_[b] += x;
      fixed_[b] += static_cast<std::uint32_t>(x * static_cast<float>(1u << k::kFixedBits));
    }
    args_ = {upload(values_, values), n_, out_sums_.reserve_for<float>(bins),
             out_fixed_.reserve_for<unsigned long long>(bins), bins, sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override {
    ATOMQ_CUDA(cudaMemset(args_.sums, 0, bins_ * sizeof(float)));
    ATOMQ_CUDA(cudaMemset(args_.fixed, 0, bins_ * sizeof(unsigned long long)));
    fixed_point_ = false;
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kFloatKernels, std::size(kFloatKernels), variant);
    fixed_point_ = variant == "fixed_point_integer";
    const std::size_t shared = bins_ * 4;
    launch_persistent(c.kernel(), c.threads, shared, &args_);
  }
  // Fixed point: exact. Floats: the order of additions differs, so each bin within 1e-4 relative.
  VariantCheck check() override {
    if (fixed_point_) {
      const bool exact = download(args_.fixed, bins_) == fixed_;
      return {true, exact, exact ? "fixed-point sums equal the CPU's" : "fixed-point sums differ"};
    }
    const auto got = download(args_.sums, bins_);
    for (std::uint32_t b = 0; b < bins_; ++b)
      if (std::abs(got[b] - sums_[b]) > 1e-4 * std::max(1.0, sums_[b]))
        return {true, false, fmt::format("bin {}: {} vs {}", b, got[b], sums_[b])};
    return {true, true, "float sums within 1e-4 relative of the CPU's (addition order differs)"};
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t bins_;
  std::vector<double> sums_;
  std::vector<unsigned long long> fixed_;
  bool fixed_point_ = false;
  DeviceBuffer values_, out_sums_, out_fixed_, sink_;
  k::FloatHistArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_hash_workload(const std::vector<std::uint32_t>& keys, std::uint32_t capacity) {
  return std::make_unique<HashWorkload>(keys, capacity);
}
std::unique_ptr<Workload> make_float_hist_workload(const std::vector<float>& values, std::uint32_t bins) {
  return std::make_unique<FloatHistWorkload>(values, bins);
}

}  // namespace atomq::validation
