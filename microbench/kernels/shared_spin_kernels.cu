#include <type_traits>

#include "shared_spin_kernels.cuh"

namespace atomq::microbench::kernels {

template <bool kWide>
__global__ void __launch_bounds__(1024) shared_spin_kernel(SharedSpinArgs args) {
  using Word = typename std::conditional<kWide, double, float>::type;
  extern __shared__ unsigned char raw[];
  Word* words = reinterpret_cast<Word*>(raw);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int per_warp = 32 / args.lanes_per_word;
  const int groups = (blockDim.x >> 5) / args.warps_per_word;  // warps that share no word
  const int count = groups * per_warp;
  for (int i = threadIdx.x; i < count; i += blockDim.x) words[i] = Word(0);
  __syncthreads();
  // Warps w, w + groups, w + 2 groups, ... take the same words.
  Word* word = words + (warp % groups) * per_warp + lane / args.lanes_per_word;
  const unsigned long long begin = clock64();
  // No `#pragma unroll 1` here: with it, nvcc 13.0's loop for sm_90 lost adds of same-word lanes
  // (the words summed short of the adds made; the host's exactness check refuses such a cell).
  for (int i = 0; i < args.iterations; ++i) atomicAdd(word, Word(1));
  __syncthreads();
  const unsigned long long end = clock64();
  if (threadIdx.x == 0) args.block_cycles[blockIdx.x] = end - begin;
  double sum = 0;  // whole counts: exact in double
  for (int i = threadIdx.x; i < count; i += blockDim.x) sum += static_cast<double>(words[i]);
  atomicAdd(args.total, sum);
}

template __global__ void shared_spin_kernel<false>(SharedSpinArgs);
template __global__ void shared_spin_kernel<true>(SharedSpinArgs);

const void* shared_spin_kernel_handle(bool wide) {
  return wide ? reinterpret_cast<const void*>(&shared_spin_kernel<true>)
              : reinterpret_cast<const void*>(&shared_spin_kernel<false>);
}

}  // namespace atomq::microbench::kernels
