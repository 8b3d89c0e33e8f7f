// Block-private histogram, one sample per thread (seed 000): a shared histogram per block,
// as many blocks as n / blockDim, so every block pays the zeroing and the merge.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::microbench::kernels {

template <typename T>
__global__ void __launch_bounds__(256) hist_block_private_kernel(HistArgs a) {
  extern __shared__ unsigned int block_counts[];
  zero_shared(block_counts, a.bins);
  __syncthreads();
  const unsigned long long i = global_thread_index();
  if (i < a.n) {
    const unsigned int v = static_cast<const T*>(a.samples)[i];
    if (v < a.bins) atomicAdd(&block_counts[v], 1u);
  }
  __syncthreads();
  merge_to_global(block_counts, a.bins, a.counts);
}

const void* hist_block_private_handle(int sample_bytes) {
  if (sample_bytes == 1) return reinterpret_cast<const void*>(&hist_block_private_kernel<std::uint8_t>);
  if (sample_bytes == 4) return reinterpret_cast<const void*>(&hist_block_private_kernel<std::uint32_t>);
  return nullptr;
}

}  // namespace atomq::microbench::kernels
