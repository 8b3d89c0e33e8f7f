#include "atomic_latency_kernels.cuh"
#include "atomic_stream_kernels.cuh"

namespace atomq::microbench::kernels {

template <int kOp>
__global__ void __launch_bounds__(32) atomic_latency_kernel(LatencyArgs args) {
  __shared__ unsigned int words[kSharedWords];
  for (int i = threadIdx.x; i < kSharedWords; i += blockDim.x) words[i] = 0u;
  __syncwarp();
  const int lane = threadIdx.x & 31;
  const unsigned int base = stream_word_index(lane, 0, args.pattern_kind, args.conflict_k);
  unsigned int value = 0u;
  const unsigned long long t0 = clock64();
  if (lane < args.active_lanes) {
#pragma unroll 1
    for (int it = 0; it < args.iterations; ++it) {
#pragma unroll
      for (int j = 0; j < kLatencyUnroll; ++j) {
        unsigned int* p = &words[base + (value & args.zero)];
        if constexpr (kOp == 3)
          value = atomicCAS(p, value, value + 1u);
        else
          value = atomicAdd(p, 1u);
      }
    }
  }
  __syncwarp();
  const unsigned long long t1 = clock64();
  if (threadIdx.x == 0) args.block_cycles[blockIdx.x] = t1 - t0;
  if (value == 0xFFFFFFFFu) args.sink[blockIdx.x] = value;  // never taken
}

template __global__ void atomic_latency_kernel<1>(LatencyArgs);
template __global__ void atomic_latency_kernel<3>(LatencyArgs);

const void* atomic_latency_kernel_handle(int op) {
  if (op == 1) return reinterpret_cast<const void*>(&atomic_latency_kernel<1>);
  if (op == 3) return reinterpret_cast<const void*>(&atomic_latency_kernel<3>);
  return nullptr;
}

}  // namespace atomq::microbench::kernels
