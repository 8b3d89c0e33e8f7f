// A histogram kept in the shared memory of the next block of a cluster (DSMEM): the baseline
// adds each value into its peer's bins through the cluster window, the fix into the block's own
// bins, the ablation reads the same values without an atomic. Each block then adds its bins to
// the global counts once.
#include <cooperative_groups.h>

#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace cg = cooperative_groups;

namespace atomq::validation::kernels {

namespace {

__device__ void zero(std::uint32_t* bins, std::uint32_t count) {
  for (std::uint32_t i = threadIdx.x; i < count; i += blockDim.x) bins[i] = 0u;
}

__device__ void flush(const PeerHistArgs& a, const std::uint32_t* bins) {
  for (std::uint32_t i = threadIdx.x; i < a.bins; i += blockDim.x)
    if (bins[i] != 0u) atomicAdd(&a.counts[i], bins[i]);
}

__global__ void peer_hist_dsmem_kernel(PeerHistArgs a) {
  extern __shared__ std::uint32_t bins[];
  cg::cluster_group cluster = cg::this_cluster();
  zero(bins, a.bins);
  cluster.sync();
  std::uint32_t* peer = cluster.map_shared_rank(bins, (cluster.block_rank() + 1) % cluster.num_blocks());
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) atomicAdd(&peer[a.values[i]], 1u);
  cluster.sync();
  flush(a, bins);
}

__global__ void peer_hist_local_kernel(PeerHistArgs a) {
  extern __shared__ std::uint32_t bins[];
  zero(bins, a.bins);
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) atomicAdd(&bins[a.values[i]], 1u);
  __syncthreads();
  flush(a, bins);
}

__global__ void peer_hist_no_atomics_kernel(PeerHistArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc += a.values[i] * 2654435761u;
  keep_alive(acc, a.sink);
}

}  // namespace

const void* peer_hist_dsmem_handle() { return handle(&peer_hist_dsmem_kernel); }
const void* peer_hist_local_handle() { return handle(&peer_hist_local_kernel); }
const void* peer_hist_no_atomics_handle() { return handle(&peer_hist_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
