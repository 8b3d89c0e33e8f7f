// A histogram kept in a cluster peer's shared memory (DSMEM): the workload, its cluster launch
// and its exact CPU reference.
#include <algorithm>
#include <stdexcept>

#include "inputs.hpp"
#include "validation_kernels.cuh"
#include "workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr int kThreads = 256;
constexpr unsigned kClusterSize = 2;

// As many clusters of blocks as fit at once on the device: a persistent grid of clusters.
void launch_cluster_persistent(const void* kernel, std::size_t shared_bytes, void* args) {
  int device = 0, sms = 0, per_sm = 0;
  ATOMQ_CUDA(cudaGetDevice(&device));
  ATOMQ_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ATOMQ_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, shared_bytes));
  const unsigned blocks = std::max(1u, static_cast<unsigned>(per_sm * sms) / kClusterSize) * kClusterSize;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = shared_bytes;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kClusterSize;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  void* params[] = {args};
  ATOMQ_CUDA(cudaLaunchKernelExC(&config, kernel, params));
  ATOMQ_CUDA_LAUNCH();
}

class PeerHistogramWorkload : public Workload {
 public:
  PeerHistogramWorkload(const std::vector<std::uint32_t>& values, std::uint32_t bins)
      : n_(values.size()), bins_(bins), expected_(count_ids(values, bins)) {
    args_ = {upload(values_, values), n_, counts_.reserve_for<std::uint32_t>(bins), bins,
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, bins_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const std::size_t shared = bins_ * sizeof(std::uint32_t);
    if (variant == "dsmem_atomics") launch_cluster_persistent(k::peer_hist_dsmem_handle(), shared, &args_);
    else if (variant == "block_local") launch_cluster_persistent(k::peer_hist_local_handle(), shared, &args_);
    else if (variant == "no_atomics") launch_cluster_persistent(k::peer_hist_no_atomics_handle(), 0, &args_);
    else throw std::invalid_argument("unknown variant '" + variant + "'");
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, bins_), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t bins_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer values_, counts_, sink_;
  k::PeerHistArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_peer_histogram_workload(std::size_t n, std::uint32_t bins, std::uint64_t seed) {
  return std::make_unique<PeerHistogramWorkload>(uniform_values(n, bins, seed), bins);
}

}  // namespace atomq::validation
