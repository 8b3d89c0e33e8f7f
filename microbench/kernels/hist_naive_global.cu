// Naive histogram: one global atomicAdd per sample (REDG to L2; hot bins serialize there).
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::microbench::kernels {

template <typename T>
__global__ void __launch_bounds__(256) hist_naive_global_kernel(HistArgs a) {
  const unsigned int bins = a.bins;
  unsigned int* counts = a.counts;
  auto count = [&](unsigned int v) {
    if (v < bins) atomicAdd(&counts[v], 1u);
  };
  for_each_sample(static_cast<const T*>(a.samples), a.n, global_thread_index(),
                  global_thread_count(), count);
}

const void* hist_naive_global_handle(int sample_bytes) {
  if (sample_bytes == 1) return reinterpret_cast<const void*>(&hist_naive_global_kernel<std::uint8_t>);
  if (sample_bytes == 4) return reinterpret_cast<const void*>(&hist_naive_global_kernel<std::uint32_t>);
  return nullptr;
}

}  // namespace atomq::microbench::kernels
