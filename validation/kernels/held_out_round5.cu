// Held-out round 5: energy deposited per depth bin (float adds), and the max of each row of scores
// through a global CAS loop.
#include <cmath>

#include "held_out_round5.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {

// A float max as code without a native one writes it: read, CAS in the larger, retry on change.
__device__ __forceinline__ void cas_max(float* word, float v) {
  unsigned int* bits = reinterpret_cast<unsigned int*>(word);
  unsigned int old = *bits, assumed;
  do {
    assumed = old;
    if (__uint_as_float(assumed) >= v) return;
    old = atomicCAS(bits, assumed, __float_as_uint(v));
  } while (old != assumed);
}

}  // namespace

__global__ void deposit_global_kernel(DepositArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) atomicAdd(&a.dose[a.depth[i]], a.energy[i]);
}

// The 512 bins (2 KiB) per block in shared memory; each block adds its nonzero bins once.
__global__ void deposit_block_private_kernel(DepositArgs a) {
  __shared__ float dose[kDepthBins];
  for (std::uint32_t b = threadIdx.x; b < kDepthBins; b += blockDim.x) dose[b] = 0.0f;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) atomicAdd(&dose[a.depth[i]], a.energy[i]);
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < kDepthBins; b += blockDim.x)
    if (dose[b] != 0.0f) atomicAdd(&a.dose[b], dose[b]);
}

__global__ void deposit_no_atomics_kernel(DepositArgs a) {
  float acc = 0.0f;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc += a.energy[i] * a.depth[i];
  keep_alive(static_cast<std::uint32_t>(acc), a.sink);
}

__global__ void row_max_cas_kernel(RowMaxArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    cas_max(&a.row_max[i / kRowLength], a.scores[i]);
}

// The grid's threads are whole warps and kRowLength a multiple of 32, so a warp's scores share a
// row: their max by five shuffles, then lane 0's CAS loop.
__global__ void row_max_warp_first_kernel(RowMaxArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    float v = a.scores[i];
    for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
    if ((threadIdx.x & 31u) == 0u) cas_max(&a.row_max[i / kRowLength], v);
  }
}

__global__ void row_max_no_atomics_kernel(RowMaxArgs a) {
  float acc = 0.0f;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc += a.scores[i];
  keep_alive(static_cast<std::uint32_t>(acc), a.sink);
}

const void* deposit_global_handle() { return handle(&deposit_global_kernel); }
const void* deposit_block_private_handle() { return handle(&deposit_block_private_kernel); }
const void* deposit_no_atomics_handle() { return handle(&deposit_no_atomics_kernel); }
const void* row_max_cas_handle() { return handle(&row_max_cas_kernel); }
const void* row_max_warp_first_handle() { return handle(&row_max_warp_first_kernel); }
const void* row_max_no_atomics_handle() { return handle(&row_max_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
