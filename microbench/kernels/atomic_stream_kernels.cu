#include "atomic_stream_kernels.cuh"

namespace atomq::microbench::kernels {


template <int kFao, int kCasQuarters>
__global__ void __launch_bounds__(1024) atomic_stream_kernel(StreamArgs args) {
  __shared__ unsigned int words[kSharedWords];
  for (int i = threadIdx.x; i < kSharedWords; i += blockDim.x) words[i] = 0u;

  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  unsigned int* const target = &words[stream_word_index(lane, warp, args.pattern_kind, args.conflict_k)];
  unsigned int acc = 0u;
  __syncthreads();

  const unsigned long long t0 = clock64();
  if (lane < args.active_lanes) {
#pragma unroll 1
    for (int it = 0; it < args.iterations; ++it) {
#pragma unroll
      for (int j = 0; j < 32; ++j) {
        if ((j & 3) < kCasQuarters) {
          acc += atomicCAS(target, static_cast<unsigned int>(j), static_cast<unsigned int>(j + 1));
        } else if constexpr (kFao == 0) {
          atomicAdd(target, 1u);
        } else if constexpr (kFao == 1) {
          acc += atomicAdd(target, 1u);
        }
      }
      // Control: one ALU op per group keeps the loop alive (an empty loop is deleted), so the
      // control costs what the atomic kernels' loop costs: counter, compare, branch.
      if constexpr (kFao == 2) asm volatile("add.u32 %0, %0, 1;" : "+r"(acc));
    }
  }
  __syncthreads();
  const unsigned long long t1 = clock64();

  if (threadIdx.x == 0) {
    unsigned int smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    args.block_start[blockIdx.x] = t0;
    args.block_end[blockIdx.x] = t1;
    args.block_smid[blockIdx.x] = smid;
  }
  if (acc == args.sentinel) args.sink[blockIdx.x] = acc;  // never taken
  if (args.verify) {
    unsigned long long local = 0;
    for (int i = threadIdx.x; i < kSharedWords; i += blockDim.x) local += words[i];
    atomicAdd(args.verify_sum, local);
  }
}

__global__ void clock_spin_kernel(long long cycles, unsigned long long* out) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (threadIdx.x == 0) out[blockIdx.x] = static_cast<unsigned long long>(now - start);
}

#define ATOMQ_INSTANTIATE(FAO)                                             \
  template __global__ void atomic_stream_kernel<FAO, 0>(StreamArgs);      \
  template __global__ void atomic_stream_kernel<FAO, 1>(StreamArgs);      \
  template __global__ void atomic_stream_kernel<FAO, 2>(StreamArgs);      \
  template __global__ void atomic_stream_kernel<FAO, 3>(StreamArgs);      \
  template __global__ void atomic_stream_kernel<FAO, 4>(StreamArgs);
ATOMQ_INSTANTIATE(0)
ATOMQ_INSTANTIATE(1)
#undef ATOMQ_INSTANTIATE
template __global__ void atomic_stream_kernel<2, 0>(StreamArgs);

const void* atomic_stream_kernel_handle(int fao, int cas_quarters) {
  if (fao == 2) return cas_quarters == 0 ? reinterpret_cast<const void*>(&atomic_stream_kernel<2, 0>) : nullptr;
  static const void* const table[2][5] = {
      {reinterpret_cast<const void*>(&atomic_stream_kernel<0, 0>),
       reinterpret_cast<const void*>(&atomic_stream_kernel<0, 1>),
       reinterpret_cast<const void*>(&atomic_stream_kernel<0, 2>),
       reinterpret_cast<const void*>(&atomic_stream_kernel<0, 3>),
       reinterpret_cast<const void*>(&atomic_stream_kernel<0, 4>)},
      {reinterpret_cast<const void*>(&atomic_stream_kernel<1, 0>),
       reinterpret_cast<const void*>(&atomic_stream_kernel<1, 1>),
       reinterpret_cast<const void*>(&atomic_stream_kernel<1, 2>),
       reinterpret_cast<const void*>(&atomic_stream_kernel<1, 3>),
       reinterpret_cast<const void*>(&atomic_stream_kernel<1, 4>)}};
  if (fao < 0 || fao > 1 || cas_quarters < 0 || cas_quarters > 4) return nullptr;
  return table[fao][cas_quarters];
}

const void* clock_spin_kernel_handle() { return reinterpret_cast<const void*>(&clock_spin_kernel); }

}  // namespace atomq::microbench::kernels
