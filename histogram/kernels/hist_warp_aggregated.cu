// Warp aggregation: lanes holding the same bin find each other with __match_any_sync and the
// lowest of them adds the group's size, so a warp issues one atomic per distinct bin. The match
// itself is not free: it pays off only when bins repeat inside a warp.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T>
__global__ void __launch_bounds__(policy::WarpAggregated::kThreads) hist_warp_aggregated_kernel(HistArgs a) {
  extern __shared__ unsigned int block_counts[];
  const unsigned int bins = a.bins;
  const unsigned int lane = threadIdx.x & 31u;
  auto count = [&](unsigned int v) {
    const unsigned int active = __activemask();
    const bool valid = v < bins;
    // Dropped samples join one group of their own and add nothing.
    const unsigned int peers = __match_any_sync(active, valid ? v : 0xFFFFFFFFu);
    if (valid && lane == static_cast<unsigned int>(__ffs(peers) - 1))
      atomicAdd(&block_counts[v], static_cast<unsigned int>(__popc(peers)));
  };
  with_shared_histogram(block_counts, bins, a.counts, [&] { grid_for_each_sample<T>(a.samples, a.n, count); });
}

const void* hist_warp_aggregated_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_warp_aggregated_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
