// Histogram of a 4-channel uint8 image with 32 bank-aligned copies of the four channel
// histograms: lane l adds bin v of channel c at word (c * bins + v) * 32 + l, always in bank l.
// A warp's atomic is then one wavefront whatever the colours (the plain image kernel pays a
// bank conflict per step on a random-colour image). 128 KB of shared memory at 256 bins, so one
// block of 1024 threads per SM.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

// kAllInRange: 256 bins, so every channel value is a bin and no sample needs a range test (a
// test per channel costs as much as the atomic here).
template <bool kAllInRange>
__global__ void __launch_bounds__(policy::ImageLaneReplicated::kThreads,
                                  policy::ImageLaneReplicated::kMinBlocksPerSm)
    hist_image_lane_replicated_kernel(HistArgs a) {
  extern __shared__ unsigned int lane_counts[];  // 4 x bins x 32
  const unsigned int bins = a.bins;
  unsigned int* mine = lane_counts + (threadIdx.x & 31u);
  auto count = [&](unsigned int pixel) {
#pragma unroll
    for (unsigned int channel = 0; channel < 4u; ++channel) {
      const unsigned int v = (pixel >> (8u * channel)) & 0xFFu;
      if (kAllInRange || v < bins) atomicAdd(mine + ((channel * bins + v) << 5), 1u);
    }
  };
  count_in_lane_copies<std::uint32_t>(a.samples, a.n, lane_counts, 4u * bins, a.counts, count);
}

const void* hist_image_lane_replicated_handle(unsigned int bins) {
  return bins == 256u ? handle(&hist_image_lane_replicated_kernel<true>)
                      : handle(&hist_image_lane_replicated_kernel<false>);
}

}  // namespace atomq::histogram::kernels
