// Launch shapes of the histogram variants (see variant_launcher.hpp).
#include "variant_launcher.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "atomq/cuda/check.hpp"

namespace atomq::histogram::detail {

void VariantLauncher::enqueue(const VariantPolicy& variant, const LaunchInput& input) {
  const std::string why = unsupported_reason(variant.variant, input.type, input.bins, input.n);
  if (!why.empty()) throw HistogramError(why);
  variant_ = &variant;
  input_ = input;
  const std::size_t count_words = static_cast<std::size_t>(histogram_count(input.type)) * input.bins;
  if (!variant.writes_every_count || input.n == 0)
    ATOMQ_CUDA(cudaMemsetAsync(input.counts, 0, count_words * sizeof(unsigned int), 0));
  if (input.n == 0) return;
  variant.enqueue(*this);
}

kernels::HistArgs VariantLauncher::args(unsigned int aux) const {
  return {input_.samples, input_.n, static_cast<unsigned int>(input_.bins), aux, input_.counts};
}

void VariantLauncher::allow_shared(const void* kernel, std::size_t bytes) {
  int& set = shared_limit_set_[kernel];
  if (static_cast<int>(bytes) <= set || bytes <= 48 * 1024) return;
  ATOMQ_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
  set = static_cast<int>(bytes);
}

int VariantLauncher::resident_grid(const void* kernel, int threads, std::size_t shared_bytes,
                                   std::size_t work_items) {
  int per_sm = 0;
  ATOMQ_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  if (per_sm < 1) per_sm = 1;
  const std::size_t wave = static_cast<std::size_t>(per_sm) * props_.multiProcessorCount;
  const std::size_t needed = std::max<std::size_t>(1, (work_items + threads - 1) / threads);
  return static_cast<int>(std::min(wave, needed));
}

void VariantLauncher::launch(const void* kernel, int blocks, std::size_t shared_bytes,
                             const kernels::HistArgs& args, int cluster_ranks) {
  allow_shared(kernel, shared_bytes);
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(variant_->threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = 0;
  cudaLaunchAttribute cluster{};
  if (cluster_ranks > 0) {
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = static_cast<unsigned int>(cluster_ranks);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  kernels::HistArgs copy = args;
  void* params[] = {&copy};
  ATOMQ_CUDA(cudaLaunchKernelExC(&config, kernel, params));
  ATOMQ_CUDA_LAUNCH();
}

void VariantLauncher::launch_grid_stride(const void* kernel) {
  const std::size_t bytes = shared_bytes();
  allow_shared(kernel, bytes);  // before the occupancy query, which depends on it
  launch(kernel, resident_grid(kernel, variant_->threads, bytes, input_.n), bytes, args());
}

void VariantLauncher::launch_one_sample_per_thread(const void* kernel) {
  const std::size_t threads = static_cast<std::size_t>(variant_->threads);
  const std::size_t blocks = (input_.n + threads - 1) / threads;
  launch(kernel, static_cast<int>(blocks), shared_bytes(), args());
}

void VariantLauncher::launch_split_bins(const void* kernel) {
  // Slices from the bins, then as many whole copies per cluster as keep the most blocks resident.
  const int slice_log2 = shared::split_slice_log2(input_.bins);
  launch_best_fit_clusters(kernel, static_cast<unsigned int>(slice_log2), input_.n,
                           shared::split_ranks(input_.bins), policy::ManyBinsCluster::kMaxClusterRanks);
}

void VariantLauncher::launch_best_fit_clusters(const void* kernel, unsigned int aux, std::size_t work_items,
                                               int min_ranks, int max_ranks) {
  const std::size_t bytes = shared_bytes();
  const int threads = variant_->threads;
  allow_shared(kernel, bytes);
  const ClusterShape shape = best_cluster(kernel, threads, bytes, min_ranks, max_ranks);
  if (shape.ranks == 0)
    throw HistogramError("this device cannot keep one cluster of the kernel's blocks resident");
  const std::size_t needed = (work_items + threads - 1) / threads;
  const std::size_t clusters = std::max<std::size_t>(
      1, std::min<std::size_t>(shape.resident_blocks / shape.ranks, (needed + shape.ranks - 1) / shape.ranks));
  launch(kernel, static_cast<int>(clusters) * shape.ranks, bytes, args(aux), shape.ranks);
  spdlog::debug("{} clusters of {} blocks, aux {}", clusters, shape.ranks, aux);
}

namespace {

// Blocks of `ranks`-block clusters of `kernel` resident at once; -1 when the size is refused.
int resident_cluster_blocks(const void* kernel, int ranks, int threads, std::size_t shared_bytes) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(ranks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned int>(ranks);
  attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return clusters * ranks;
}

}  // namespace

// The cluster size (a power of two from min_ranks to max_ranks) that keeps the most blocks
// resident (the larger on a tie: fewer global updates when the cluster sums its blocks'
// histograms). Sizes above the portable 8 are tried only where the kernel may use them.
ClusterShape VariantLauncher::best_cluster(const void* kernel, int threads, std::size_t shared_bytes,
                                           int min_ranks, int max_ranks) {
  const auto key = std::make_tuple(kernel, threads, shared_bytes, min_ranks, max_ranks);
  if (auto it = cluster_cache_.find(key); it != cluster_cache_.end()) return it->second;
  ClusterShape best;
  for (int ranks = max_ranks; ranks >= min_ranks; ranks /= 2) {
    if (ranks > policy::kPortableClusterRanks &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    const int blocks = resident_cluster_blocks(kernel, ranks, threads, shared_bytes);
    if (blocks > best.resident_blocks) best = {ranks, blocks};
  }
  spdlog::debug("clusters of {} blocks of {} threads, {} B shared: {} blocks resident", best.ranks,
                threads, shared_bytes, best.resident_blocks);
  cluster_cache_[key] = best;
  return best;
}

}  // namespace atomq::histogram::detail
