// Held-out round 8: 15-bit pixel histograms of a smooth image and of a noisy one.
#include "held_out_round8.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {
constexpr unsigned int kFullMask = 0xFFFFFFFFu;
}  // namespace

__global__ void pixel_hist_global_kernel(PixelHistArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) atomicAdd(&a.counts[a.pixels[i]], 1u);
}

// The lanes of one bin elect their lowest lane, which adds their number.
__global__ void pixel_hist_warp_merged_kernel(PixelHistArgs a) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.n;
    const unsigned int active = __ballot_sync(kFullMask, valid);
    if (!valid) continue;
    const std::uint32_t bin = a.pixels[i];
    const unsigned int peers = __match_any_sync(active, bin);
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1) atomicAdd(&a.counts[bin], __popc(peers));
  }
}

__global__ void pixel_hist_block_private_kernel(PixelHistArgs a) {
  extern __shared__ std::uint32_t local[];  // kPixelBins counters
  for (unsigned int b = threadIdx.x; b < kPixelBins; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) atomicAdd(&local[a.pixels[i]], 1u);
  __syncthreads();
  for (unsigned int b = threadIdx.x; b < kPixelBins; b += blockDim.x)
    if (local[b] != 0u) atomicAdd(&a.counts[b], local[b]);
}

__global__ void pixel_hist_no_atomics_kernel(PixelHistArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc ^= a.pixels[i] * 2654435761u;
  keep_alive(acc, a.sink);
}

const void* pixel_hist_global_handle() { return handle(&pixel_hist_global_kernel); }
const void* pixel_hist_warp_merged_handle() { return handle(&pixel_hist_warp_merged_kernel); }
const void* pixel_hist_block_private_handle() { return handle(&pixel_hist_block_private_kernel); }
const void* pixel_hist_no_atomics_handle() { return handle(&pixel_hist_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
