// Block-private histogram with a grid-stride loop: one resident wave of blocks, each zeroes and
// merges its shared histogram once. Scalar loads, one sample per thread-iteration.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T>
__global__ void __launch_bounds__(policy::BlockGridStride::kThreads) hist_block_grid_stride_kernel(HistArgs a) {
  extern __shared__ unsigned int block_counts[];
  with_shared_histogram(block_counts, a.bins, a.counts, [&] {
    const T* samples = static_cast<const T*>(a.samples);
    const unsigned long long stride = global_thread_count();
    for (unsigned long long i = global_thread_index(); i < a.n; i += stride) {
      const unsigned int v = samples[i];
      if (v < a.bins) atomicAdd(&block_counts[v], 1u);
    }
  });
}

const void* hist_block_grid_stride_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_block_grid_stride_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
