// Block-private histogram with a grid-stride loop: one resident wave of blocks, each zeroes and
// merges its shared histogram once. Scalar loads, one sample per thread-iteration.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::microbench::kernels {

template <typename T>
__global__ void __launch_bounds__(512) hist_block_grid_stride_kernel(HistArgs a) {
  extern __shared__ unsigned int block_counts[];
  zero_shared(block_counts, a.bins);
  __syncthreads();
  const T* samples = static_cast<const T*>(a.samples);
  const unsigned long long stride = global_thread_count();
  for (unsigned long long i = global_thread_index(); i < a.n; i += stride) {
    const unsigned int v = samples[i];
    if (v < a.bins) atomicAdd(&block_counts[v], 1u);
  }
  __syncthreads();
  merge_to_global(block_counts, a.bins, a.counts);
}

const void* hist_block_grid_stride_handle(int sample_bytes) {
  if (sample_bytes == 1) return reinterpret_cast<const void*>(&hist_block_grid_stride_kernel<std::uint8_t>);
  if (sample_bytes == 4) return reinterpret_cast<const void*>(&hist_block_grid_stride_kernel<std::uint32_t>);
  return nullptr;
}

}  // namespace atomq::microbench::kernels
