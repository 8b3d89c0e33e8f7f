// Held-out round 12: the depth pass of a software rasterizer and the absolute maximum of a
// tensor (FP8 scaling's amax).
#include "held_out_round12.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {

constexpr unsigned int kFullMask = 0xFFFFFFFFu;

// |x| as its bits: for x >= 0 the unsigned order of the bits is the order of the values.
__device__ __forceinline__ std::uint32_t abs_bits(float x) { return __float_as_uint(x) & 0x7FFFFFFFu; }

__device__ __forceinline__ std::uint32_t thread_amax(const AmaxArgs& a) {
  std::uint32_t m = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) m = max(m, abs_bits(a.x[i]));
  return m;
}

}  // namespace

__global__ void depth_test_atomic_min_kernel(DepthTestArgs a) {
  for (unsigned long long i = global_thread(); i < a.fragments; i += global_threads())
    atomicMin(&a.zbuffer[a.pixel[i]], a.depth[i]);
}

// The early depth test: a fragment behind the depth already stored sends no atomic. The read may
// see an older (larger) depth; then the atomicMin decides, so the result is the same.
__global__ void depth_test_early_test_kernel(DepthTestArgs a) {
  for (unsigned long long i = global_thread(); i < a.fragments; i += global_threads()) {
    std::uint32_t* word = &a.zbuffer[a.pixel[i]];
    const std::uint32_t z = a.depth[i];
    if (z < __ldcg(word)) atomicMin(word, z);
  }
}

__global__ void depth_test_no_atomics_kernel(DepthTestArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.fragments; i += global_threads())
    acc += a.pixel[i] * 2654435761u ^ a.depth[i];
  keep_alive(acc, a.sink);
}

__global__ void amax_per_thread_kernel(AmaxArgs a) { atomicMax(a.amax, thread_amax(a)); }

// The warp's maximum by __reduce_max_sync, the block's from its warps' in shared memory, one
// atomicMax per block.
__global__ void amax_per_block_kernel(AmaxArgs a) {
  __shared__ std::uint32_t warp_max[32];
  const std::uint32_t m = __reduce_max_sync(kFullMask, thread_amax(a));
  const unsigned int warp = threadIdx.x / 32u, lane = threadIdx.x % 32u;
  if (lane == 0u) warp_max[warp] = m;
  __syncthreads();
  if (warp == 0u) {
    const std::uint32_t v = __reduce_max_sync(kFullMask, lane < blockDim.x / 32u ? warp_max[lane] : 0u);
    if (lane == 0u) atomicMax(a.amax, v);
  }
}

// The product keeps the maximum's range from the compiler, so the comparison in keep_alive stays.
__global__ void amax_no_atomics_kernel(AmaxArgs a) { keep_alive(thread_amax(a) * 2654435761u + 1u, a.sink); }

const void* depth_test_atomic_min_handle() { return handle(&depth_test_atomic_min_kernel); }
const void* depth_test_early_test_handle() { return handle(&depth_test_early_test_kernel); }
const void* depth_test_no_atomics_handle() { return handle(&depth_test_no_atomics_kernel); }
const void* amax_per_thread_handle() { return handle(&amax_per_thread_kernel); }
const void* amax_per_block_handle() { return handle(&amax_per_block_kernel); }
const void* amax_no_atomics_handle() { return handle(&amax_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
