// 32 bank-aligned copies per block: lane l counts bin b at word b * 32 + l, i.e. always in bank
// l. One warp's atomic therefore never has a bank conflict, whatever the data (one wavefront
// per instruction), and lanes never share a word, so nothing serializes on a hot bin. The cost
// is 128 bytes of shared memory per bin. 16-byte loads.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

// kAllInRange: every value of T is a bin (uint8 with 256 bins), so no range test per sample.
template <typename T, bool kAllInRange>
__global__ void __launch_bounds__(policy::LaneReplicated::kThreads, policy::LaneReplicated::kMinBlocksPerSm)
    hist_lane_replicated_kernel(HistArgs a) {
  extern __shared__ unsigned int lane_counts[];  // bins x 32
  const unsigned int bins = a.bins;
  unsigned int* mine = lane_counts + (threadIdx.x & 31u);
  auto count = [&](unsigned int v) {
    if (kAllInRange || v < bins) atomicAdd(mine + (v << 5), 1u);
  };
  count_in_lane_copies<T>(a.samples, a.n, lane_counts, bins, a.counts, count);
}

const void* hist_lane_replicated_handle(int sample_bytes, unsigned int bins) {
  if (sample_bytes == 1 && bins == 256u) return handle(&hist_lane_replicated_kernel<std::uint8_t, true>);
  return by_sample_bytes(sample_bytes,
                         [](auto t) { return handle(&hist_lane_replicated_kernel<decltype(t), false>); });
}

}  // namespace atomq::histogram::kernels
