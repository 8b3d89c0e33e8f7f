// Held-out round 11: the digit counts of an LSD radix-sort pass over nearly sorted keys and one
// push-style PageRank step over a power-law graph; their inputs from fixed seeds, an exact CPU
// reference for the counts and a double one for the ranks.
#include <algorithm>
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

#include "held_out_round11.cuh"
#include "held_out_workloads.hpp"
#include "inputs.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

// Uniform 32-bit keys sorted ascending, then one in `unsorted_one_in` (on average) replaced by a
// uniform key: the order a radix sort's upper digits see in data that is already mostly sorted.
std::vector<std::uint32_t> nearly_sorted_keys(std::size_t n, std::uint32_t unsorted_one_in, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> keys(n);
  for (std::uint32_t& key : keys) key = static_cast<std::uint32_t>(rng() >> 32);
  std::sort(keys.begin(), keys.end());
  for (std::uint32_t& key : keys)
    if (rng() % unsorted_one_in == 0) key = static_cast<std::uint32_t>(rng() >> 32);
  return keys;
}

constexpr KernelChoice kRadixDigitHistKernels[] = {
    {"shared_atomics", &k::radix_digit_hist_shared_atomics_handle, 256},
    {"warp_aggregated", &k::radix_digit_hist_warp_aggregated_handle, 256},
    {"no_atomics", &k::radix_digit_hist_no_atomics_handle, 256},
};

class RadixDigitHistWorkload : public Workload {
 public:
  explicit RadixDigitHistWorkload(const std::vector<std::uint32_t>& keys)
      : n_(keys.size()), expected_(k::kRadixBins, 0u) {
    for (std::uint32_t key : keys) ++expected_[(key >> k::kRadixDigitShift) & (k::kRadixBins - 1u)];
    args_ = {upload(keys_, keys), n_, counts_.reserve_for<std::uint32_t>(k::kRadixBins),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, k::kRadixBins * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kRadixDigitHistKernels, std::size(kRadixDigitHistKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, k::kRadixBins), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer keys_, counts_, sink_;
  k::RadixDigitHistArgs args_{};
};

// A graph's edges and each source's share of rank: sources uniform, targets floor(V u^3) (hubs at
// the lowest ids), each vertex's rank uniform in [0.5, 1.5) divided by its out-degree (rounded to
// float once, on the host).
struct PushGraph {
  std::vector<std::uint32_t> src, dst;
  std::vector<float> contrib;
};

PushGraph power_law_push_graph(std::size_t edges, std::uint32_t vertices, std::uint64_t seed) {
  PushGraph g{uniform_values(edges, vertices, seed), power_law_ids(edges, vertices, 3.0, false, seed + 1), {}};
  const std::vector<std::uint32_t> out_degree = count_ids(g.src, vertices);
  const std::vector<float> rank = uniform_on_grid(vertices, seed + 2);
  g.contrib.resize(vertices);
  for (std::uint32_t v = 0; v < vertices; ++v)
    g.contrib[v] = out_degree[v] == 0u ? 0.0f : static_cast<float>(double{rank[v]} / out_degree[v]);
  return g;
}

constexpr KernelChoice kPagerankPushKernels[] = {
    {"edge_atomics", &k::pagerank_push_edge_atomics_handle, 256},
    {"hub_privatized", &k::pagerank_push_hub_privatized_handle, 256},
    {"no_atomics", &k::pagerank_push_no_atomics_handle, 256},
};

class PagerankPushWorkload : public Workload {
 public:
  explicit PagerankPushWorkload(const PushGraph& g)
      : vertices_(static_cast<std::uint32_t>(g.contrib.size())), edges_(g.src.size()), expected_(vertices_, 0.0) {
    for (std::size_t e = 0; e < edges_; ++e) expected_[g.dst[e]] += g.contrib[g.src[e]];
    args_ = {upload(src_, g.src), upload(dst_, g.dst), upload(contrib_, g.contrib), edges_,
             next_.reserve_for<float>(vertices_), sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.next, 0, vertices_ * sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kPagerankPushKernels, std::size(kPagerankPushKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_float_sums(download(args_.next, vertices_), expected_, "vertex"); }
  double useful_updates() const override { return static_cast<double>(edges_); }

 private:
  std::uint32_t vertices_;
  std::size_t edges_;
  std::vector<double> expected_;
  DeviceBuffer src_, dst_, contrib_, next_, sink_;
  k::PagerankPushArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_radix_digit_hist_workload(std::size_t n, std::uint32_t unsorted_one_in,
                                                         std::uint64_t seed) {
  if (n == 0 || n > 0xFFFFFFFFu || unsorted_one_in == 0)
    throw std::invalid_argument("radix_digit_hist: 1 to 2^32 - 1 keys, at most every key unsorted");
  return std::make_unique<RadixDigitHistWorkload>(nearly_sorted_keys(n, unsorted_one_in, seed));
}

std::unique_ptr<Workload> make_pagerank_push_workload(std::size_t edges, std::uint32_t vertices, std::uint64_t seed) {
  if (edges == 0 || edges > 0xFFFFFFFFu || vertices == 0)
    throw std::invalid_argument("pagerank_push: 1 to 2^32 - 1 edges, at least one vertex");
  return std::make_unique<PagerankPushWorkload>(power_law_push_graph(edges, vertices, seed));
}

}  // namespace atomq::validation
