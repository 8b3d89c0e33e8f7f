// Threshold sweep: each thread runs m steps of a dependent FMA chain (an FMA and the loop's own
// counter, compare and branch) per shared atomic. With
// address stride 1 the warp's lanes hit 32 banks (k = 1); with stride 32 one bank (k = 32).
// with_atomics = 0 is the same loop without the atomic: the ablation.
#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

__global__ void threshold_sweep_kernel(SweepArgs a) {
  __shared__ std::uint32_t words[32 * 32 * 2];  // 32 lanes x stride 32, for two warps' offsets
  for (int w = threadIdx.x; w < 32 * 32 * 2; w += blockDim.x) words[w] = 0u;
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int warp = static_cast<int>(threadIdx.x / 32u);
  std::uint32_t* word = &words[lane * a.address_stride + (a.address_stride == 1 ? 32 * (warp % 64) : warp % 2)];
  float x = threadIdx.x * 1e-3f;
#pragma unroll 1
  for (int it = 0; it < a.iterations; ++it) {
#pragma unroll 1
    for (int j = 0; j < a.fmas_per_atomic; ++j) x = fmaf(x, 0.999f, 0.5f);
    if (a.with_atomics) atomicAdd(word, 1u);
  }
  if (x == -1.f) a.sink[blockIdx.x] = x;
  __syncthreads();
  std::uint32_t total = 0u;  // every atomic of the block landed in one of the words
  for (int w = threadIdx.x; w < 32 * 32 * 2; w += blockDim.x) total += words[w];
  if (a.with_atomics && total != 0u) atomicAdd(&a.counts[0], total);
}

// The round-trip sweep: the same m FMA steps, then a returning global atomicAdd whose result the
// chain takes up, so each iteration waits for the atomic's round trip; every lane its own 128-byte
// line (no two requests meet at a word or a line: the slices are far from busy). words: one line
// per thread of the grid.
__global__ void round_trip_sweep_kernel(SweepArgs a, std::uint32_t* words) {
  std::uint32_t* word = &words[(blockIdx.x * blockDim.x + threadIdx.x) * 32u];
  const bool sends = static_cast<int>(threadIdx.x & 31u) < a.atomic_lanes;
  float x = threadIdx.x * 1e-3f;
#pragma unroll 1
  for (int it = 0; it < a.iterations; ++it) {
#pragma unroll 1
    for (int j = 0; j < a.fmas_per_atomic; ++j) x = fmaf(x, 0.999f, 0.5f);
    if (a.with_atomics) {
      std::uint32_t old = sends ? atomicAdd(word, 1u) : 0u;
      // Fewer sending lanes: lane 0's result feeds every lane's chain, so the whole warp waits.
      if (a.atomic_lanes < 32) old = __shfl_sync(0xFFFFFFFFu, old, 0);
      x += static_cast<float>(old & 1u);
    }
  }
  if (x == -1.f) a.sink[blockIdx.x] = x;
}

const void* threshold_sweep_handle() { return handle(&threshold_sweep_kernel); }
const void* round_trip_sweep_handle() { return handle(&round_trip_sweep_kernel); }

}  // namespace atomq::validation::kernels
