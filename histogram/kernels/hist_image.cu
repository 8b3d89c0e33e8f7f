// Histogram of a 4-channel uint8 image, one shared histogram per channel.
// Plain: every thread adds its pixel's channels in the order 0, 1, 2, 3, so on a single-colour
// image all 32 lanes of a warp hit one word at once. Interleaved: thread t starts at channel
// t % 4, so the four channels of a pixel go to four different lanes and a warp's lanes spread
// over the four channel histograms in each step.
// Pixels are read as 32-bit words with 16-byte loads.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <bool kInterleave>
__global__ void __launch_bounds__(policy::Image::kThreads) hist_image_kernel(HistArgs a) {
  extern __shared__ unsigned int channel_counts[];  // 4 x bins
  const unsigned int bins = a.bins;
  const unsigned int first_channel = kInterleave ? (threadIdx.x & 3u) : 0u;
  auto count = [&](unsigned int pixel) {
#pragma unroll
    for (unsigned int step = 0; step < 4u; ++step) {
      const unsigned int channel = (step + first_channel) & 3u;
      const unsigned int v = (pixel >> (8u * channel)) & 0xFFu;
      if (v < bins) atomicAdd(&channel_counts[channel * bins + v], 1u);
    }
  };
  with_shared_histogram(channel_counts, 4u * bins, a.counts,
                        [&] { grid_for_each_sample<std::uint32_t>(a.samples, a.n, count); });
}

const void* hist_image_handle(bool interleave_channels) {
  return interleave_channels ? handle(&hist_image_kernel<true>) : handle(&hist_image_kernel<false>);
}

}  // namespace atomq::histogram::kernels
