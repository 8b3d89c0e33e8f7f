// Device helpers of the validation kernels: the grid-stride index and the handle cast.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

__device__ __forceinline__ unsigned long long global_thread() {
  return static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ unsigned long long global_threads() {
  return static_cast<unsigned long long>(gridDim.x) * blockDim.x;
}

template <typename Kernel>
const void* handle(Kernel* kernel) {
  return reinterpret_cast<const void*>(kernel);
}

// Ablation kernels fold what they read into `acc` and store it only when it equals a value no
// input produces, so the loads stay and nothing is written.
__device__ __forceinline__ void keep_alive(std::uint32_t acc, std::uint32_t* sink) {
  if (acc == 0x9E3779B9u) sink[blockIdx.x] = acc;
}

}  // namespace atomq::validation::kernels
