// Weighted float histogram: bins[floor(x * bins)] += x. A shared float atomicAdd is a CAS loop
// on sm_90; the fix adds fixed-point weights with native 32-bit integer atomics.
#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

namespace {
__device__ __forceinline__ std::uint32_t bin_of(float x, std::uint32_t bins) {
  return min(static_cast<std::uint32_t>(x * bins), bins - 1u);
}
}  // namespace

// Dynamic shared memory: bins floats.
__global__ void float_hist_shared_kernel(FloatHistArgs a) {
  extern __shared__ float sums[];
  for (std::uint32_t b = threadIdx.x; b < a.bins; b += blockDim.x) sums[b] = 0.0f;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const float x = a.values[i];
    atomicAdd(&sums[bin_of(x, a.bins)], x);
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < a.bins; b += blockDim.x)
    if (sums[b] != 0.0f) atomicAdd(&a.sums[b], sums[b]);
}

// Weights in [0, 1) as 12-bit fixed point (each below 2^12): a shared word holds the sum of
// 2^20 of them, more than a block of the persistent grid sees (the host checks n), so the block
// merges into the 64-bit global sums once, at the end.
__global__ void float_hist_fixed_point_kernel(FloatHistArgs a) {
  extern __shared__ std::uint32_t fixed[];
  for (std::uint32_t b = threadIdx.x; b < a.bins; b += blockDim.x) fixed[b] = 0u;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const float x = a.values[i];
    atomicAdd(&fixed[bin_of(x, a.bins)], static_cast<std::uint32_t>(x * (1u << kFixedBits)));
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < a.bins; b += blockDim.x)
    if (fixed[b] != 0u) atomicAdd(&a.fixed[b], static_cast<unsigned long long>(fixed[b]));
}

__global__ void float_hist_no_atomics_kernel(FloatHistArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    acc += bin_of(a.values[i], a.bins);
  keep_alive(acc, a.sink);
}

const void* float_hist_shared_handle() { return handle(&float_hist_shared_kernel); }
const void* float_hist_fixed_point_handle() { return handle(&float_hist_fixed_point_kernel); }
const void* float_hist_no_atomics_handle() { return handle(&float_hist_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
