// Warp aggregation: lanes holding the same bin find each other with __match_any_sync and the
// lowest of them adds the group's size, so a warp issues one atomic per distinct bin. The match
// itself is not free: it pays off only when bins repeat inside a warp.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::microbench::kernels {

template <typename T>
__global__ void __launch_bounds__(512) hist_warp_aggregated_kernel(HistArgs a) {
  extern __shared__ unsigned int block_counts[];
  const unsigned int bins = a.bins;
  zero_shared(block_counts, bins);
  __syncthreads();
  const unsigned int lane = threadIdx.x & 31u;
  auto count = [&](unsigned int v) {
    const unsigned int active = __activemask();
    const bool valid = v < bins;
    // Dropped samples join one group of their own and add nothing.
    const unsigned int peers = __match_any_sync(active, valid ? v : 0xFFFFFFFFu);
    if (valid && lane == static_cast<unsigned int>(__ffs(peers) - 1))
      atomicAdd(&block_counts[v], static_cast<unsigned int>(__popc(peers)));
  };
  for_each_sample(static_cast<const T*>(a.samples), a.n, global_thread_index(),
                  global_thread_count(), count);
  __syncthreads();
  merge_to_global(block_counts, bins, a.counts);
}

const void* hist_warp_aggregated_handle(int sample_bytes) {
  if (sample_bytes == 1) return reinterpret_cast<const void*>(&hist_warp_aggregated_kernel<std::uint8_t>);
  if (sample_bytes == 4) return reinterpret_cast<const void*>(&hist_warp_aggregated_kernel<std::uint32_t>);
  return nullptr;
}

}  // namespace atomq::microbench::kernels
