// Held-out round 3: key counts under a spin lock per hash bucket, and the k-means update step;
// their inputs from fixed seeds and exact CPU references.
#include <fmt/format.h>

#include <cstring>
#include <iterator>
#include <stdexcept>

#include "held_out_round3.cuh"
#include "held_out_workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kChainKernels[] = {
    {"bucket_locks", &k::chain_locked_handle, 256},
    {"lock_free", &k::chain_lock_free_handle, 256},
    {"unlocked", &k::chain_unlocked_handle, 256},
};

class ChainLockWorkload : public Workload {
 public:
  ChainLockWorkload(const std::vector<std::uint32_t>& keys, std::uint32_t buckets)
      : n_(keys.size()), buckets_(buckets), expected_(count_ids(keys, buckets * k::kChainSlots)) {
    args_ = {upload(keys_, keys), n_, buckets, slot_keys_.reserve_for<std::uint32_t>(slots()),
             slot_counts_.reserve_for<std::uint32_t>(slots()), locks_.reserve_for<int>(buckets)};
  }
  void reset() override {
    ATOMQ_CUDA(cudaMemset(args_.slot_keys, 0xFF, slots() * sizeof(std::uint32_t)));  // kEmptyKey
    ATOMQ_CUDA(cudaMemset(args_.slot_counts, 0, slots() * sizeof(std::uint32_t)));
    ATOMQ_CUDA(cudaMemset(args_.locks, 0, buckets_ * sizeof(int)));
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kChainKernels, std::size(kChainKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  // Each key's count in the slot that holds it (in its own bucket), against the CPU's count.
  VariantCheck check() override {
    const std::vector<std::uint32_t> keys = download(args_.slot_keys, slots());
    const std::vector<std::uint32_t> counts = download(args_.slot_counts, slots());
    std::vector<std::uint32_t> got(expected_.size(), 0);
    std::vector<bool> seen(expected_.size(), false);
    for (std::size_t s = 0; s < slots(); ++s) {
      if (keys[s] == k::kEmptyKey) continue;
      if (keys[s] >= got.size() || keys[s] % buckets_ != s / k::kChainSlots || seen[keys[s]])
        return {true, false, fmt::format("slot {} holds key {}, outside its bucket or twice", s, keys[s])};
      seen[keys[s]] = true;
      got[keys[s]] = counts[s];
    }
    return compare_counts(got, expected_);
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t slots() const { return static_cast<std::size_t>(buckets_) * k::kChainSlots; }
  std::size_t n_;
  std::uint32_t buckets_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer keys_, slot_keys_, slot_counts_, locks_;
  k::ChainArgs args_{};
};

constexpr KernelChoice kKmeansKernels[] = {
    {"global_atomics", &k::kmeans_global_handle, 256},
    {"block_private", &k::kmeans_block_private_handle, 256},
    {"no_atomics", &k::kmeans_no_atomics_handle, 256},
};

class KmeansWorkload : public Workload {
 public:
  // Coordinates are small integers, so every sum is exact in float in any order.
  KmeansWorkload(const std::vector<std::uint32_t>& coordinates, const std::vector<std::uint32_t>& labels,
                 std::uint32_t centroids)
      : n_(labels.size()), centroids_(centroids), sums_expected_(centroids * k::kKmeansDims, 0.0f),
        counts_expected_(count_ids(labels, centroids)) {
    std::vector<float> points(coordinates.begin(), coordinates.end());
    for (std::size_t i = 0; i < n_; ++i)
      for (std::uint32_t d = 0; d < k::kKmeansDims; ++d)
        sums_expected_[labels[i] * k::kKmeansDims + d] += points[i * k::kKmeansDims + d];
    args_ = {upload(points_, points), upload(labels_, labels), n_, centroids,
             sums_.reserve_for<float>(centroids * k::kKmeansDims), counts_.reserve_for<std::uint32_t>(centroids),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override {
    ATOMQ_CUDA(cudaMemset(args_.sums, 0, centroids_ * k::kKmeansDims * sizeof(float)));
    ATOMQ_CUDA(cudaMemset(args_.counts, 0, centroids_ * sizeof(std::uint32_t)));
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kKmeansKernels, std::size(kKmeansKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    const std::vector<float> sums = download(args_.sums, sums_expected_.size());
    for (std::size_t w = 0; w < sums.size(); ++w)
      if (std::memcmp(&sums[w], &sums_expected_[w], sizeof(float)) != 0)
        return {true, false, fmt::format("sum {}: {} against the CPU's {}", w, sums[w], sums_expected_[w])};
    return compare_counts(download(args_.counts, centroids_), counts_expected_);
  }
  double useful_updates() const override { return static_cast<double>(n_) * (k::kKmeansDims + 1); }

 private:
  std::size_t n_;
  std::uint32_t centroids_;
  std::vector<float> sums_expected_;
  std::vector<std::uint32_t> counts_expected_;
  DeviceBuffer points_, labels_, sums_, counts_, sink_;
  k::KmeansArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_chain_lock_workload(std::size_t n, std::uint32_t buckets, double power,
                                                   std::uint64_t seed) {
  return std::make_unique<ChainLockWorkload>(power_law_ids(n, buckets * k::kChainSlots, power, true, seed), buckets);
}

std::unique_ptr<Workload> make_kmeans_workload(std::size_t n, std::uint32_t centroids, double power,
                                               std::uint64_t seed) {
  if (centroids == 0 || centroids > k::kKmeansMaxCentroids)  // the block-private sums are sized for the most
    throw std::invalid_argument(fmt::format("kmeans: {} centroids, 1 to {} supported", centroids, k::kKmeansMaxCentroids));
  return std::make_unique<KmeansWorkload>(uniform_values(n * k::kKmeansDims, 4, seed),
                                          power_law_ids(n, centroids, power, false, seed + 1), centroids);
}

}  // namespace atomq::validation
