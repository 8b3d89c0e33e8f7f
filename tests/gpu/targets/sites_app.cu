// A CUDA program whose atomic sites differ inside one kernel, for per-instruction counts
// (`atomq analyze -- sites_app`, tests/integration/check_sites.py):
//   two_sites       site A: atomicAdd(&words[tid], 1), result unused: ATOMS.POPC.INC, k = 1
//                   site B: v += atomicAdd(&words[tid & zero], 1), zero = 0 at run time: one
//                   word the compiler cannot prove uniform, result used: ATOMS.ADD, k = 32
//   aggregated_site v += atomicAdd(&words[0], 1): a provably uniform address, warp-aggregated
//                   by the compiler (one lane per instruction)
//   float_same      float atomicAdd on one shared word the compiler cannot prove uniform: a
//                   CAS loop (ATOMS.CAST.SPIN) where 8 warps x 32 lanes take turns
//   float_distinct  float atomicAdd on a word per thread: the same loop, one attempt each
//   u64_same        unsigned long long atomicAdd on such a word (no native 64-bit shared
//                   add on Hopper: a CAS loop; on a provably uniform word the compiler
//                   aggregates the warp first)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "exit_on_cuda_error.cuh"

constexpr int kBlocks = 264;
constexpr int kThreads = 256;  // 8 warps
constexpr int kIterations = 64;

__global__ void __launch_bounds__(kThreads) two_sites(unsigned int* out, unsigned int zero) {
  __shared__ unsigned int words[kThreads];
  words[threadIdx.x] = 0;
  __syncthreads();
  unsigned int v = 0;
#pragma unroll 1  // one SASS instruction per source site
  for (int i = 0; i < kIterations; ++i) {
    atomicAdd(&words[threadIdx.x], 1u);
    v += atomicAdd(&words[threadIdx.x & zero], 1u);
  }
  __syncthreads();
  out[blockIdx.x * kThreads + threadIdx.x] = words[threadIdx.x] + v;
}

__global__ void __launch_bounds__(kThreads) aggregated_site(unsigned int* out) {
  __shared__ unsigned int words[kThreads];
  words[threadIdx.x] = 0;
  __syncthreads();
  unsigned int v = 0;
#pragma unroll 1
  for (int i = 0; i < kIterations; ++i) v += atomicAdd(&words[0], 1u);
  __syncthreads();
  out[blockIdx.x * kThreads + threadIdx.x] = words[0] + v;
}

// One word the compiler cannot prove uniform (zero = 0 at run time), as a histogram's bin on
// one-value input: no warp aggregation, every lane contends.
__global__ void __launch_bounds__(kThreads) float_same(float* out, unsigned int zero) {
  __shared__ float sums[kThreads];
  sums[threadIdx.x] = 0.0f;
  __syncthreads();
  for (int i = 0; i < kIterations; ++i) atomicAdd(&sums[threadIdx.x & zero], 1.0f);  // unrolled: a CAS loop per copy
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = sums[0];
}

__global__ void __launch_bounds__(kThreads) float_distinct(float* out) {
  __shared__ float sums[kThreads];
  sums[threadIdx.x] = 0.0f;
  __syncthreads();
  for (int i = 0; i < kIterations; ++i) atomicAdd(&sums[threadIdx.x], 1.0f);
  __syncthreads();
  out[blockIdx.x * kThreads + threadIdx.x] = sums[threadIdx.x];
}

__global__ void __launch_bounds__(kThreads) u64_same(unsigned long long* out, unsigned int zero) {
  __shared__ unsigned long long sums[kThreads];
  sums[threadIdx.x] = 0;
  __syncthreads();
  for (int i = 0; i < kIterations; ++i) atomicAdd(&sums[threadIdx.x & zero], 1ull);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = sums[0];
}

int main() {
  void* out = nullptr;
  CHECK(cudaMalloc(&out, sizeof(unsigned long long) * kBlocks * kThreads));
  two_sites<<<kBlocks, kThreads>>>(static_cast<unsigned int*>(out), 0u);
  aggregated_site<<<kBlocks, kThreads>>>(static_cast<unsigned int*>(out));
  float_distinct<<<kBlocks, kThreads>>>(static_cast<float*>(out));
  u64_same<<<kBlocks, kThreads>>>(static_cast<unsigned long long*>(out), 0u);
  float_same<<<kBlocks, kThreads>>>(static_cast<float*>(out), 0u);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof(sum), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  if (sum != static_cast<float>(kThreads * kIterations)) {
    std::fprintf(stderr, "float_same: block 0 sums to %g, expected %d\n", sum, kThreads * kIterations);
    return 1;
  }
  std::printf("sites_app: 5 kernels\n");
  return 0;
}
