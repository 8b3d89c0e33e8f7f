// The launch shapes the variants' enqueue functions use (kVariantPolicies' `enqueue` column):
// a resident wave with a grid-stride loop, one sample per thread, clusters split over the bins,
// clusters of the size that keeps most blocks resident. Block size and shared memory come from
// the variant's row of the table. Internal to the histogram library; everything on stream 0.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <tuple>

#include "atomq/histogram/histogram.hpp"
#include "hist_kernels.cuh"
#include "histogram_cub.hpp"

namespace atomq::histogram::detail {

// What one run reads and writes: the prepared input and the result counters.
struct LaunchInput {
  const void* samples = nullptr;
  std::size_t n = 0;
  SampleType type = SampleType::kU32;
  int bins = 0;
  unsigned int* counts = nullptr;  // histogram_count(type) * bins
};

struct ClusterShape {
  int ranks = 0;            // blocks per cluster; 0: no cluster of this kernel fits
  int resident_blocks = 0;  // blocks of that shape resident at once on the device
};

class VariantLauncher {
 public:
  explicit VariantLauncher(const cudaDeviceProp& props) : props_(props) {}
  VariantLauncher(const VariantLauncher&) = delete;
  VariantLauncher& operator=(const VariantLauncher&) = delete;

  // Queues one run of the variant on `input`: refuses what unsupported_reason refuses (throws
  // HistogramError), zeroes the counts unless the variant writes them all, then calls the
  // variant's enqueue function.
  void enqueue(const VariantPolicy& variant, const LaunchInput& input);

  // For the enqueue functions: the case being launched and the launch shapes.
  const LaunchInput& input() const { return input_; }
  int sample_bytes() const { return static_cast<int>(histogram::sample_bytes(input_.type)); }
  unsigned int bins() const { return static_cast<unsigned int>(input_.bins); }
  CubScratch& cub() { return cub_; }

  // One resident wave of blocks (no more than the samples need), each looping over the input.
  void launch_grid_stride(const void* kernel);
  // As many blocks as samples / threads: one sample per thread.
  void launch_one_sample_per_thread(const void* kernel);
  // The bins split over the ranks of a cluster (many_bins): slices from the bins, then as many
  // whole copies per cluster as keep the most blocks resident.
  void launch_split_bins(const void* kernel);
  // Whole clusters of the size (min_ranks..max_ranks) that keeps most blocks resident, one
  // resident wave, no more blocks than `work_items` / threads; `aux` goes to the kernel's HistArgs.
  void launch_best_fit_clusters(const void* kernel, unsigned int aux, std::size_t work_items, int min_ranks = 1,
                                int max_ranks = policy::ManyBinsPacked::kMaxClusterRanks);

  // Blocks of `kernel` that one resident wave holds, but no more than `work_items` threads' worth.
  int resident_grid(const void* kernel, int threads, std::size_t shared_bytes, std::size_t work_items);

 private:
  kernels::HistArgs args(unsigned int aux = 0u) const;
  std::size_t shared_bytes() const { return variant_->shared_bytes(input_.bins); }
  void allow_shared(const void* kernel, std::size_t bytes);
  // Launches a histogram kernel, as a cluster of `cluster_ranks` blocks when that is not 0.
  void launch(const void* kernel, int blocks, std::size_t shared_bytes, const kernels::HistArgs& args,
              int cluster_ranks = 0);
  ClusterShape best_cluster(const void* kernel, int threads, std::size_t shared_bytes, int min_ranks,
                            int max_ranks);

  const cudaDeviceProp& props_;
  const VariantPolicy* variant_ = nullptr;
  LaunchInput input_;
  CubScratch cub_;
  std::map<const void*, int> shared_limit_set_;
  std::map<std::tuple<const void*, int, std::size_t, int, int>, ClusterShape> cluster_cache_;
};

}  // namespace atomq::histogram::detail
