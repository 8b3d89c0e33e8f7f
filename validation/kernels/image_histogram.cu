// RGBA8 image histogram (seed 001): 4 channels x 256 bins per block in shared memory; the fix
// gives each warp its own padded copy; the ablation reads the pixels without counting.
#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

namespace {
constexpr int kBins = 4 * 256;
constexpr int kWarpCopyStride = kBins + 1;  // padded: copies start in different banks
}  // namespace

__global__ void image_shared_kernel(ImageArgs a) {
  __shared__ std::uint32_t hist[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) hist[b] = 0u;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const uchar4 p = a.pixels[i];
    atomicAdd(&hist[p.x], 1u);
    atomicAdd(&hist[256 + p.y], 1u);
    atomicAdd(&hist[512 + p.z], 1u);
    atomicAdd(&hist[768 + p.w], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (hist[b] != 0u) atomicAdd(&a.counts[b], hist[b]);
}

// Dynamic shared memory: (blockDim.x / 32) copies of kWarpCopyStride words.
__global__ void image_warp_replicated_kernel(ImageArgs a) {
  extern __shared__ std::uint32_t copies[];
  const int warps = static_cast<int>(blockDim.x / 32u);
  for (int w = threadIdx.x; w < warps * kWarpCopyStride; w += blockDim.x) copies[w] = 0u;
  __syncthreads();
  std::uint32_t* mine = copies + (threadIdx.x / 32u) * kWarpCopyStride;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const uchar4 p = a.pixels[i];
    atomicAdd(&mine[p.x], 1u);
    atomicAdd(&mine[256 + p.y], 1u);
    atomicAdd(&mine[512 + p.z], 1u);
    atomicAdd(&mine[768 + p.w], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    std::uint32_t total = 0u;
    for (int w = 0; w < warps; ++w) total += copies[w * kWarpCopyStride + b];
    if (total != 0u) atomicAdd(&a.counts[b], total);
  }
}

__global__ void image_no_atomics_kernel(ImageArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const uchar4 p = a.pixels[i];
    acc += p.x + 3u * p.y + 5u * p.z + 7u * p.w;
  }
  keep_alive(acc, a.sink);
}

const void* image_shared_handle() { return handle(&image_shared_kernel); }
const void* image_warp_replicated_handle() { return handle(&image_warp_replicated_kernel); }
const void* image_no_atomics_handle() { return handle(&image_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
