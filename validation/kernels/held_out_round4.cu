// Held-out round 4: clustered points counted per voxel, and the adjacent letter pairs of a text.
#include "held_out_round4.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {

__device__ __forceinline__ std::uint32_t voxel_of(std::uint32_t p) {
  const std::uint32_t x = p & 0xFFu, y = (p >> 8) & 0xFFu, z = (p >> 16) & 0xFFu;
  return (z * kVoxelSide + y) * kVoxelSide + x;
}

// Pair i of the text: letters i and i + 1 (i + 1 < n).
__device__ __forceinline__ std::uint32_t bigram_of(const std::uint8_t* text, unsigned long long i) {
  return static_cast<std::uint32_t>(text[i]) * kBigramLetters + text[i + 1];
}

}  // namespace

__global__ void voxel_global_kernel(VoxelArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicAdd(&a.counts[voxel_of(a.points[i])], 1u);
}

// The whole grid's counts fit in shared memory (16 KiB), so each block counts its points there
// and adds only its nonzero counts to global memory.
__global__ void voxel_block_private_kernel(VoxelArgs a) {
  __shared__ std::uint32_t counts[kVoxels];
  for (std::uint32_t v = threadIdx.x; v < kVoxels; v += blockDim.x) counts[v] = 0u;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicAdd(&counts[voxel_of(a.points[i])], 1u);
  __syncthreads();
  for (std::uint32_t v = threadIdx.x; v < kVoxels; v += blockDim.x)
    if (counts[v] != 0u) atomicAdd(&a.counts[v], counts[v]);
}

__global__ void voxel_no_atomics_kernel(VoxelArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc += voxel_of(a.points[i]);
  keep_alive(acc, a.sink);
}

__global__ void bigram_global_kernel(BigramArgs a) {
  for (unsigned long long i = global_thread(); i + 1 < a.n; i += global_threads())
    atomicAdd(&a.counts[bigram_of(a.text, i)], 1u);
}

// As the voxel counts: the 1024 bins (4 KiB) per block in shared memory, merged once.
__global__ void bigram_block_private_kernel(BigramArgs a) {
  __shared__ std::uint32_t counts[kBigramBins];
  for (std::uint32_t b = threadIdx.x; b < kBigramBins; b += blockDim.x) counts[b] = 0u;
  __syncthreads();
  for (unsigned long long i = global_thread(); i + 1 < a.n; i += global_threads())
    atomicAdd(&counts[bigram_of(a.text, i)], 1u);
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < kBigramBins; b += blockDim.x)
    if (counts[b] != 0u) atomicAdd(&a.counts[b], counts[b]);
}

__global__ void bigram_no_atomics_kernel(BigramArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i + 1 < a.n; i += global_threads()) acc += bigram_of(a.text, i);
  keep_alive(acc, a.sink);
}

const void* voxel_global_handle() { return handle(&voxel_global_kernel); }
const void* voxel_block_private_handle() { return handle(&voxel_block_private_kernel); }
const void* voxel_no_atomics_handle() { return handle(&voxel_no_atomics_kernel); }
const void* bigram_global_handle() { return handle(&bigram_global_kernel); }
const void* bigram_block_private_handle() { return handle(&bigram_block_private_kernel); }
const void* bigram_no_atomics_handle() { return handle(&bigram_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
