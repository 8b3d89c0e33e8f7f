#include "load_chain_kernels.cuh"

namespace atomq::microbench::kernels {

namespace {

// One load of `lane_words` words at `i` through L2 only (ld.global.cg: no L1 reuse, as a
// streaming read or a probe of a large table sees); the OR of the words (0).
__device__ __forceinline__ unsigned int load(const unsigned int* words, unsigned long long i, int lane_words) {
  if (lane_words == 4) {
    const uint4 q = __ldcg(reinterpret_cast<const uint4*>(words + i));
    return q.x | q.y | q.z | q.w;
  }
  if (lane_words == 2) {
    const uint2 q = __ldcg(reinterpret_cast<const uint2*>(words + i));
    return q.x | q.y;
  }
  return __ldcg(words + i);
}

}  // namespace

__global__ void __launch_bounds__(1024) load_chain_kernel(LoadChainArgs args) {
  const unsigned long long thread = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned long long warp = thread >> 5;
  const unsigned long long lane = thread & 31;
  const unsigned long long warps = (static_cast<unsigned long long>(gridDim.x) * blockDim.x) >> 5;
  // Words one warp covers per step: 32 lanes side by side, or 32 lines of 32 words.
  const unsigned long long warp_words = args.scattered ? 32ull * 32ull : 32ull * args.lane_words;
  const unsigned long long lane_offset = args.scattered ? lane * 32ull : lane * args.lane_words;
  const unsigned long long grid_words = warps * warp_words;  // the grid walks the buffer in order
  const unsigned long long mask = args.footprint_words - 1;
  unsigned long long position = warp * warp_words;
  unsigned int acc = 0u;
#pragma unroll 1
  for (int s = 0; s < args.steps; ++s) {
    acc += load(args.words, (position + lane_offset + acc) & mask, args.lane_words);
    position += grid_words;
  }
  if (acc != 0u) args.sink[blockIdx.x] = acc;  // never taken: the buffer is zero
}

}  // namespace atomq::microbench::kernels
