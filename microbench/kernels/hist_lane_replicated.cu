// 32 bank-aligned copies per block: lane l counts bin b at word b * 32 + l, i.e. always in bank
// l. One warp's atomic therefore never has a bank conflict, whatever the data (one wavefront
// per instruction), and lanes never share a word, so nothing serializes on a hot bin. The cost
// is 128 bytes of shared memory per bin. 16-byte loads.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::microbench::kernels {

// kAllInRange: every value of T is a bin (uint8 with 256 bins), so no range test per sample.
template <typename T, bool kAllInRange>
__global__ void __launch_bounds__(512, 3) hist_lane_replicated_kernel(HistArgs a) {
  extern __shared__ unsigned int lane_counts[];  // bins x 32
  const unsigned int bins = a.bins;
  const unsigned int lane = threadIdx.x & 31u;
  unsigned int* mine = lane_counts + lane;
  auto count = [&](unsigned int v) {
    if (kAllInRange || v < bins) atomicAdd(mine + (v << 5), 1u);
  };
  for_each_sample(static_cast<const T*>(a.samples), a.n, global_thread_index(),
                  global_thread_count(), count, [&] {
                    zero_shared(lane_counts, bins * 32u);
                    __syncthreads();
                  });
  __syncthreads();
  merge_lane_copies_to_global(lane_counts, bins, a.counts);
}

const void* hist_lane_replicated_handle(int sample_bytes, unsigned int bins) {
  if (sample_bytes == 1 && bins == 256u)
    return reinterpret_cast<const void*>(&hist_lane_replicated_kernel<std::uint8_t, true>);
  if (sample_bytes == 1) return reinterpret_cast<const void*>(&hist_lane_replicated_kernel<std::uint8_t, false>);
  if (sample_bytes == 4) return reinterpret_cast<const void*>(&hist_lane_replicated_kernel<std::uint32_t, false>);
  return nullptr;
}

}  // namespace atomq::microbench::kernels
