// Particle binning: the cell of each particle in a grid over the unit square is counted.
#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

namespace {

__device__ __forceinline__ std::uint32_t cell_of(float2 p, std::uint32_t cx, std::uint32_t cy) {
  const std::uint32_t x = min(static_cast<std::uint32_t>(p.x * cx), cx - 1u);
  const std::uint32_t y = min(static_cast<std::uint32_t>(p.y * cy), cy - 1u);
  return y * cx + x;
}

}  // namespace

__global__ void bin_global_kernel(BinArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicAdd(&a.counts[cell_of(a.positions[i], a.cells_x, a.cells_y)], 1u);
}

__global__ void bin_block_private_kernel(BinArgs a) {
  extern __shared__ std::uint32_t local[];
  const std::uint32_t cells = a.cells_x * a.cells_y;
  for (std::uint32_t c = threadIdx.x; c < cells; c += blockDim.x) local[c] = 0u;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicAdd(&local[cell_of(a.positions[i], a.cells_x, a.cells_y)], 1u);
  __syncthreads();
  for (std::uint32_t c = threadIdx.x; c < cells; c += blockDim.x)
    if (local[c] != 0u) atomicAdd(&a.counts[c], local[c]);
}

__global__ void bin_no_atomics_kernel(BinArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    acc += cell_of(a.positions[i], a.cells_x, a.cells_y);
  keep_alive(acc, a.sink);
}

const void* bin_global_handle() { return handle(&bin_global_kernel); }
const void* bin_block_private_handle() { return handle(&bin_block_private_kernel); }
const void* bin_no_atomics_handle() { return handle(&bin_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
