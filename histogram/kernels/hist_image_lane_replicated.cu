// Histogram of a 4-channel uint8 image with 32 bank-aligned copies of the four channel
// histograms: lane l adds bin v of channel c at word (c * bins + v) * 32 + l, always in bank l.
// A warp's atomic is then one wavefront whatever the colours (the plain image kernel pays a
// bank conflict per step on a random-colour image). 128 KB of shared memory at 256 bins, so one
// block of 1024 threads per SM.
//
// At 256 bins the kernel is bound by instruction issue, not by the atomic unit (4 shared atomics
// per pixel, each a single wavefront): the 256-bin form spends two integer instructions per
// channel, a byte extract and a multiply-add into the lane's byte address, with the channel's
// table offset in the atomic's immediate.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

namespace {

constexpr int kVectorsInFlight = 4;  // one block of 1024 threads per SM: 64 B in flight each

// Channel c of the pixel: bin byte c, at byte (c * 256 + bin) * 128 + 4 * lane.
template <unsigned int kChannel>
__device__ __forceinline__ void count_channel_256(unsigned int pixel, unsigned int lane_address) {
  const unsigned int bin = __byte_perm(pixel, 0u, 0x4440u + kChannel);
  shared_add_one<kChannel * 256u * 128u>(bin * 128u + lane_address);
}

}  // namespace

// kAllInRange: 256 bins, so every channel value is a bin and no sample needs a range test.
template <bool kAllInRange>
__global__ void __launch_bounds__(policy::ImageLaneReplicated::kThreads,
                                  policy::ImageLaneReplicated::kMinBlocksPerSm)
    hist_image_lane_replicated_kernel(HistArgs a) {
  extern __shared__ unsigned int lane_counts[];  // 4 x bins x 32
  const unsigned int bins = a.bins;
  const unsigned int lane = threadIdx.x & 31u;
  const unsigned int counters = 4u * bins;
  if constexpr (kAllInRange) {
    const unsigned int lane_address = shared_address(lane_counts) + 4u * lane;
    auto count = [&](unsigned int pixel) {
      count_channel_256<0>(pixel, lane_address);
      count_channel_256<1>(pixel, lane_address);
      count_channel_256<2>(pixel, lane_address);
      count_channel_256<3>(pixel, lane_address);
    };
    count_in_lane_copies<std::uint32_t, kVectorsInFlight>(a.samples, a.n, lane_counts, counters, a.counts, count);
  } else {
    unsigned int* mine = lane_counts + lane;
    auto count = [&](unsigned int pixel) {
#pragma unroll
      for (unsigned int channel = 0; channel < 4u; ++channel) {
        const unsigned int v = (pixel >> (8u * channel)) & 0xFFu;
        if (v < bins) atomicAdd(mine + ((channel * bins + v) << 5), 1u);
      }
    };
    count_in_lane_copies<std::uint32_t, kVectorsInFlight>(a.samples, a.n, lane_counts, counters, a.counts, count);
  }
}

const void* hist_image_lane_replicated_handle(unsigned int bins) {
  return bins == 256u ? handle(&hist_image_lane_replicated_kernel<true>)
                      : handle(&hist_image_lane_replicated_kernel<false>);
}

}  // namespace atomq::histogram::kernels
