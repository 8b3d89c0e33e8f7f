// A CUDA program whose shared atomics run with a known number of active lanes e, profiled by
// `atomq analyze -- lanes_app` (tests/integration/check_lanes.py) to check e measured from the
// data-bytes counter:
//   popc_lanes<E>   ATOMS.POPC.INC (result unused), E lanes of each warp, distinct words
//   add_lanes<E>    ATOMS.ADD (result used), E lanes, distinct words
//   cas_lanes<E>    ATOMS.CAS (one attempt, no loop), E lanes, distinct words
//   float_spin      float atomicAdd: a CAS loop (ATOMS.CAST.SPIN), 32 lanes, distinct words:
//                   its data bytes do not count lanes, so e stays assumed
// for E in 1, 8, 32, each launched once. The E = 8 launches are the program's capture range
// (cudaProfilerStart / cudaProfilerStop): `--profile-from-start off` profiles those three only.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "exit_on_cuda_error.cuh"

constexpr int kBlocks = 264;
constexpr int kThreads = 256;  // 8 warps
constexpr int kIterations = 256;

template <int E>
__global__ void __launch_bounds__(kThreads) popc_lanes(unsigned int* out) {
  __shared__ unsigned int words[kThreads];
  words[threadIdx.x] = 0;
  __syncthreads();
  if (threadIdx.x % 32 < E)
    for (int i = 0; i < kIterations; ++i) atomicAdd(&words[threadIdx.x], 1u);
  __syncthreads();
  out[blockIdx.x * kThreads + threadIdx.x] = words[threadIdx.x];
}

template <int E>
__global__ void __launch_bounds__(kThreads) add_lanes(unsigned int* out) {
  __shared__ unsigned int words[kThreads];
  words[threadIdx.x] = 0;
  __syncthreads();
  unsigned int sum = 0;
  if (threadIdx.x % 32 < E)
    for (int i = 0; i < kIterations; ++i) sum += atomicAdd(&words[threadIdx.x], threadIdx.x + 1);
  __syncthreads();
  out[blockIdx.x * kThreads + threadIdx.x] = words[threadIdx.x] + sum;
}

template <int E>
__global__ void __launch_bounds__(kThreads) cas_lanes(unsigned int* out) {
  __shared__ unsigned int words[kThreads];
  words[threadIdx.x] = 0;
  __syncthreads();
  unsigned int seen = 0;
  if (threadIdx.x % 32 < E)
    for (int i = 0; i < kIterations; ++i) seen = atomicCAS(&words[threadIdx.x], seen, seen + 1);
  __syncthreads();
  out[blockIdx.x * kThreads + threadIdx.x] = words[threadIdx.x] + seen;
}

__global__ void __launch_bounds__(kThreads) float_spin(float* out) {
  __shared__ float sums[kThreads];
  sums[threadIdx.x] = 0.0f;
  __syncthreads();
  for (int i = 0; i < kIterations; ++i) atomicAdd(&sums[threadIdx.x], 1.0f);
  __syncthreads();
  out[blockIdx.x * kThreads + threadIdx.x] = sums[threadIdx.x];
}

template <int E>
void launch_all(unsigned int* out) {
  popc_lanes<E><<<kBlocks, kThreads>>>(out);
  add_lanes<E><<<kBlocks, kThreads>>>(out);
  cas_lanes<E><<<kBlocks, kThreads>>>(out);
}

int main() {
  unsigned int* out = nullptr;
  CHECK(cudaMalloc(&out, sizeof(unsigned int) * kBlocks * kThreads));
  launch_all<1>(out);
  CHECK(cudaProfilerStart());
  launch_all<8>(out);
  CHECK(cudaProfilerStop());
  launch_all<32>(out);
  float_spin<<<kBlocks, kThreads>>>(reinterpret_cast<float*>(out));
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  // float_spin's lanes each added 1 to their own word kIterations times.
  float sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof(sum), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  if (sum != static_cast<float>(kIterations)) {
    std::fprintf(stderr, "float_spin: word 0 is %g, expected %d\n", sum, kIterations);
    return 1;
  }
  std::printf("lanes_app: 10 kernels\n");
  return 0;
}
