// Block-private histogram, one sample per thread: a shared histogram per block, as many blocks
// as n / blockDim, so every block pays the zeroing and the merge for blockDim samples.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T>
__global__ void __launch_bounds__(policy::BlockPrivate::kThreads) hist_block_private_kernel(HistArgs a) {
  extern __shared__ unsigned int block_counts[];
  with_shared_histogram(block_counts, a.bins, a.counts, [&] {
    const unsigned long long i = global_thread_index();
    if (i < a.n) {
      const unsigned int v = static_cast<const T*>(a.samples)[i];
      if (v < a.bins) atomicAdd(&block_counts[v], 1u);
    }
  });
}

const void* hist_block_private_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_block_private_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
