// Held-out round 4: clustered points counted per voxel, and the bigram counts of a text; their
// inputs from fixed seeds and exact CPU references.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

#include "held_out_round4.cuh"
#include "held_out_workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

// Each point with probability 1/2 in the 3 x 3 x 3 voxels around one of `clusters` centres (each
// centre's coordinates in 1 .. side - 2, so the neighbourhood stays inside), else uniform over the
// grid; packed x | y << 8 | z << 16.
std::vector<std::uint32_t> clustered_voxel_points(std::size_t n, std::uint32_t clusters, std::uint64_t seed) {
  constexpr std::uint32_t side = k::kVoxelSide;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> any(0, side - 1), inner(1, side - 2), step(0, 2), pick(0, clusters - 1);
  std::bernoulli_distribution in_cluster(0.5);
  std::vector<std::array<std::uint32_t, 3>> centres(clusters);
  for (auto& c : centres)
    for (auto& x : c) x = inner(rng);
  std::vector<std::uint32_t> points(n);
  for (auto& p : points) {
    std::array<std::uint32_t, 3> q;
    if (in_cluster(rng)) {
      const auto& c = centres[pick(rng)];
      for (std::size_t d = 0; d < 3; ++d) q[d] = c[d] + step(rng) - 1u;
    } else {
      for (auto& x : q) x = any(rng);
    }
    p = q[0] | (q[1] << 8) | (q[2] << 16);
  }
  return points;
}

std::vector<std::uint32_t> voxel_counts(const std::vector<std::uint32_t>& points) {
  std::vector<std::uint32_t> counts(k::kVoxels, 0u);
  for (std::uint32_t p : points)
    ++counts[(((p >> 16) & 0xFFu) * k::kVoxelSide + ((p >> 8) & 0xFFu)) * k::kVoxelSide + (p & 0xFFu)];
  return counts;
}

// Letters floor(kBigramLetters u^power) for u uniform in [0, 1): letter 0 the most frequent.
std::vector<std::uint8_t> power_law_text(std::size_t n, double power, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::uint8_t> text(n);
  for (auto& c : text) {
    const auto letter = static_cast<std::uint32_t>(k::kBigramLetters * std::pow(u(rng), power));
    c = static_cast<std::uint8_t>(std::min(letter, k::kBigramLetters - 1u));
  }
  return text;
}

std::vector<std::uint32_t> bigram_counts(const std::vector<std::uint8_t>& text) {
  std::vector<std::uint32_t> counts(k::kBigramBins, 0u);
  for (std::size_t i = 0; i + 1 < text.size(); ++i) ++counts[text[i] * k::kBigramLetters + text[i + 1]];
  return counts;
}

constexpr KernelChoice kVoxelKernels[] = {
    {"global_atomics", &k::voxel_global_handle, 256},
    {"block_private", &k::voxel_block_private_handle, 256},
    {"no_atomics", &k::voxel_no_atomics_handle, 256},
};

class VoxelWorkload : public Workload {
 public:
  explicit VoxelWorkload(const std::vector<std::uint32_t>& points) : n_(points.size()), expected_(voxel_counts(points)) {
    args_ = {upload(points_, points), n_, counts_.reserve_for<std::uint32_t>(k::kVoxels),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, k::kVoxels * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kVoxelKernels, std::size(kVoxelKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, k::kVoxels), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer points_, counts_, sink_;
  k::VoxelArgs args_{};
};

constexpr KernelChoice kBigramKernels[] = {
    {"global_atomics", &k::bigram_global_handle, 256},
    {"block_private", &k::bigram_block_private_handle, 256},
    {"no_atomics", &k::bigram_no_atomics_handle, 256},
};

class BigramWorkload : public Workload {
 public:
  explicit BigramWorkload(const std::vector<std::uint8_t>& text) : n_(text.size()), expected_(bigram_counts(text)) {
    args_ = {upload(text_, text), n_, counts_.reserve_for<std::uint32_t>(k::kBigramBins),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, k::kBigramBins * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kBigramKernels, std::size(kBigramKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, k::kBigramBins), expected_); }
  double useful_updates() const override { return static_cast<double>(n_ - 1); }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer text_, counts_, sink_;
  k::BigramArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_voxel_workload(std::size_t n, std::uint32_t clusters, std::uint64_t seed) {
  if (clusters == 0) throw std::invalid_argument("voxel_occupancy: at least one cluster centre");
  return std::make_unique<VoxelWorkload>(clustered_voxel_points(n, clusters, seed));
}

std::unique_ptr<Workload> make_bigram_workload(std::size_t n, double power, std::uint64_t seed) {
  if (n < 2) throw std::invalid_argument(fmt::format("bigram_count: {} letters, at least 2 needed", n));
  return std::make_unique<BigramWorkload>(power_law_text(n, power, seed));
}

}  // namespace atomq::validation
