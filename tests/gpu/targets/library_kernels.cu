// Kernels that live in a shared library, not in the program that launches them (as a PyTorch
// or CUB-based library's do): their SASS is only in the library's code, which the analyzer
// reads from the code objects the driver loaded (integration.analyze_library).
#include <cuda_runtime.h>

namespace {

// Global float adds on 4 words: RED.E.ADD.F32 at one L2 slice's few addresses.
__global__ void scatter_hot_f32(float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&out[i & 3], 1.0f);
}

// Shared float adds on one word per warp: the compiler's CAS loop on sm_90 (ATOMS.CAST.SPIN).
__global__ void shared_float_spin(float* out, int rounds) {
  __shared__ float word[8];
  if (threadIdx.x < 8) word[threadIdx.x] = 0.0f;
  __syncthreads();
  for (int r = 0; r < rounds; ++r) atomicAdd(&word[threadIdx.x / 32], 1.0f);
  __syncthreads();
  if (threadIdx.x < 8) atomicAdd(&out[threadIdx.x], word[threadIdx.x]);
}

}  // namespace

// Launches both kernels; returns the CUDA error of the last step.
extern "C" cudaError_t library_run(float* out, int n) {
  scatter_hot_f32<<<264, 256>>>(out, n);
  shared_float_spin<<<264, 256>>>(out + 4, 64);
  return cudaDeviceSynchronize();
}
