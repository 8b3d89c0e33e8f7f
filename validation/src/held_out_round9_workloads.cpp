// Held-out round 9: counts of a sorted key array and charge deposition of particles sorted by
// cell; their inputs from fixed seeds, an exact CPU reference for the counts and a double one for
// the charges.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

#include "held_out_round9.cuh"
#include "held_out_workloads.hpp"
#include "inputs.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

// Ascending ids from 0 in runs of random length: after each element the id steps up by one with
// probability 1 / mean_run (geometric run lengths of mean mean_run).
std::vector<std::uint32_t> sorted_runs(std::size_t n, std::uint32_t mean_run, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> out(n);
  std::uint32_t id = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && rng() % mean_run == 0) ++id;
    out[i] = id;
  }
  return out;
}

constexpr KernelChoice kSortedKeyCountKernels[] = {
    {"global_atomics", &k::sorted_key_count_global_handle, 256},
    {"warp_merged", &k::sorted_key_count_warp_merged_handle, 256},
    {"no_atomics", &k::sorted_key_count_no_atomics_handle, 256},
};

class SortedKeyCountWorkload : public Workload {
 public:
  explicit SortedKeyCountWorkload(const std::vector<std::uint32_t>& keys)
      : num_keys_(keys.back() + 1u), n_(keys.size()), expected_(count_ids(keys, num_keys_)) {
    args_ = {upload(keys_, keys), n_, counts_.reserve_for<std::uint32_t>(num_keys_),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, num_keys_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kSortedKeyCountKernels, std::size(kSortedKeyCountKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, num_keys_), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::uint32_t num_keys_;
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer keys_, counts_, sink_;
  k::SortedKeyCountArgs args_{};
};

constexpr KernelChoice kSortedParticleDepositKernels[] = {
    {"global_atomics", &k::sorted_particle_deposit_global_handle, 256},
    {"warp_merged", &k::sorted_particle_deposit_warp_merged_handle, 256},
    {"no_atomics", &k::sorted_particle_deposit_no_atomics_handle, 256},
};

class SortedParticleDepositWorkload : public Workload {
 public:
  SortedParticleDepositWorkload(const std::vector<std::uint32_t>& cell, const std::vector<float>& charge)
      : cells_(cell.back() + 1u), n_(cell.size()), expected_(cells_, 0.0) {
    for (std::size_t i = 0; i < n_; ++i) expected_[cell[i]] += charge[i];
    args_ = {upload(cell_, cell), upload(charge_, charge), n_, grid_.reserve_for<float>(cells_),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.grid, 0, cells_ * sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kSortedParticleDepositKernels, std::size(kSortedParticleDepositKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_float_sums(download(args_.grid, cells_), expected_, "cell"); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::uint32_t cells_;
  std::size_t n_;
  std::vector<double> expected_;
  DeviceBuffer cell_, charge_, grid_, sink_;
  k::SortedParticleDepositArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_sorted_key_count_workload(std::size_t n, std::uint32_t mean_run, std::uint64_t seed) {
  if (n == 0 || n > 0xFFFFFFFFu || mean_run == 0)
    throw std::invalid_argument("sorted_key_count: 1 to 2^32 - 1 keys, runs of at least one key");
  return std::make_unique<SortedKeyCountWorkload>(sorted_runs(n, mean_run, seed));
}

std::unique_ptr<Workload> make_sorted_particle_deposit_workload(std::size_t particles, std::uint32_t mean_run,
                                                                std::uint64_t seed) {
  if (particles == 0 || particles > 0xFFFFFFFFu || mean_run == 0)
    throw std::invalid_argument("sorted_particle_deposit: 1 to 2^32 - 1 particles, runs of at least one particle");
  return std::make_unique<SortedParticleDepositWorkload>(sorted_runs(particles, mean_run, seed),
                                                         uniform_on_grid(particles, seed + 1));
}

}  // namespace atomq::validation
