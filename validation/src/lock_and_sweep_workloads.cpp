// The spin-locked counter and the threshold sweep.
#include <fmt/format.h>

#include <iterator>
#include <numeric>

#include "validation_kernels.cuh"
#include "workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kLockKernels[] = {
    {"global_spin_lock", &k::lock_spin_handle, 256},
    {"lock_free_atomics", &k::lock_free_handle, 256},
    {"lock_per_warp", &k::lock_per_warp_handle, 256},
};

class LockWorkload : public Workload {
 public:
  explicit LockWorkload(const std::vector<std::uint32_t>& values)
      : n_(values.size()), expected_sum_(std::accumulate(values.begin(), values.end(), 0ull)) {
    slots_ = n_ / 32 + 1;  // one per warp for the ablation (a persistent grid has fewer warps)
    args_ = {upload(values_, values), n_, locks_.reserve_for<int>(slots_),
             sums_.reserve_for<unsigned long long>(slots_), counts_.reserve_for<std::uint32_t>(slots_)};
  }
  void reset() override {
    ATOMQ_CUDA(cudaMemset(args_.locks, 0, slots_ * sizeof(int)));
    ATOMQ_CUDA(cudaMemset(args_.sum, 0, slots_ * sizeof(unsigned long long)));
    ATOMQ_CUDA(cudaMemset(args_.count, 0, slots_ * sizeof(std::uint32_t)));
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kLockKernels, std::size(kLockKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    const auto sums = download(args_.sum, 1);
    const auto counts = download(args_.count, 1);
    const bool exact = sums[0] == expected_sum_ && counts[0] == n_;
    return {true, exact, fmt::format("sum {} (expected {}), count {} (expected {})", sums[0], expected_sum_, counts[0], n_)};
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_, slots_ = 0;
  unsigned long long expected_sum_;
  DeviceBuffer values_, locks_, sums_, counts_;
  k::LockArgs args_{};
};

// A sweep's variant "m<M>" (M FMA steps per atomic) or "m<M>_no_atomics" (the ablation) into its args.
void set_sweep_variant(const std::string& variant, k::SweepArgs& args) {
  std::size_t used = 0;
  args.fmas_per_atomic = variant.size() > 1 && variant[0] == 'm' ? std::stoi(variant.substr(1), &used) : -1;
  const std::string rest = variant.substr(1 + used);
  if (args.fmas_per_atomic < 0 || (rest != "" && rest != "_no_atomics"))
    throw std::invalid_argument("unknown sweep variant '" + variant + "'");
  args.with_atomics = rest.empty() ? 1 : 0;
}

class SweepWorkload : public Workload {
 public:
  SweepWorkload(int iterations, int stride) {
    args_ = {iterations, 0, stride, 1, sink_.reserve_for<float>(1u << 16), counts_.reserve_for<std::uint32_t>(1)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    set_sweep_variant(variant, args_);
    launch_persistent(k::threshold_sweep_handle(), kThreads, 0, &args_);
    ATOMQ_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm_, k::threshold_sweep_handle(), kThreads, 0));
    ATOMQ_CUDA(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, 0));
  }
  VariantCheck check() override {
    const unsigned long long atomics = 1ull * sms_ * blocks_per_sm_ * kThreads * args_.iterations;
    const auto got = download(args_.counts, 1)[0];
    const bool exact = got == static_cast<std::uint32_t>(atomics);
    return {true, exact, fmt::format("{} atomics counted, {} issued (mod 2^32)", got, atomics)};
  }
  double useful_updates() const override { return 0.0; }

 private:
  static constexpr int kThreads = 256;
  int blocks_per_sm_ = 0, sms_ = 0;
  DeviceBuffer sink_, counts_;
  k::SweepArgs args_{};
};

// The round-trip sweep, its variants as the threshold sweep's: all 32 lanes of a warp send the
// atomic (2048 requests in flight per SM at full occupancy: the SMs' capped request rate) or one
// (64 in flight: the flat round trip).
class RoundTripSweepWorkload : public Workload {
 public:
  RoundTripSweepWorkload(int iterations, int atomic_lanes) {
    ATOMQ_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm_, k::round_trip_sweep_handle(), kThreads, 0));
    ATOMQ_CUDA(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, 0));
    words_count_ = std::size_t{32} * sms_ * blocks_per_sm_ * kThreads;
    args_ = {iterations, 0, 1, 1, sink_.reserve_for<float>(1u << 16), nullptr, atomic_lanes};
    words_ = words_buffer_.reserve_for<std::uint32_t>(words_count_);
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(words_, 0, words_count_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    set_sweep_variant(variant, args_);
    void* params[] = {&args_, &words_};
    ATOMQ_CUDA(cudaLaunchKernel(k::round_trip_sweep_handle(), dim3(sms_ * blocks_per_sm_), dim3(kThreads), params, 0,
                                nullptr));
    ATOMQ_CUDA_LAUNCH();
  }
  VariantCheck check() override {
    const std::vector<std::uint32_t> words = download(words_, words_count_);
    unsigned long long total = 0;
    for (std::uint32_t w : words) total += w;
    const unsigned long long issued =
        1ull * sms_ * blocks_per_sm_ * (kThreads / 32) * args_.atomic_lanes * args_.iterations;
    return {true, total == issued, fmt::format("{} atomics counted, {} issued", total, issued)};
  }
  double useful_updates() const override { return 0.0; }

 private:
  static constexpr int kThreads = 256;
  int blocks_per_sm_ = 0, sms_ = 0;
  std::size_t words_count_ = 0;
  std::uint32_t* words_ = nullptr;
  DeviceBuffer sink_, words_buffer_;
  k::SweepArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_round_trip_sweep_workload(int iterations, int atomic_lanes) {
  return std::make_unique<RoundTripSweepWorkload>(iterations, atomic_lanes);
}

std::unique_ptr<Workload> make_lock_workload(const std::vector<std::uint32_t>& values) {
  return std::make_unique<LockWorkload>(values);
}
std::unique_ptr<Workload> make_sweep_workload(int iterations, int address_stride) {
  return std::make_unique<SweepWorkload>(iterations, address_stride);
}

}  // namespace atomq::validation
