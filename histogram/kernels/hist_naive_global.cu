// Naive histogram: one global atomicAdd per sample (REDG to L2; hot bins serialize there).
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T>
__global__ void __launch_bounds__(policy::NaiveGlobal::kThreads) hist_naive_global_kernel(HistArgs a) {
  const unsigned int bins = a.bins;
  unsigned int* counts = a.counts;
  auto count = [&](unsigned int v) {
    if (v < bins) atomicAdd(&counts[v], 1u);
  };
  grid_for_each_sample<T>(a.samples, a.n, count);
}

const void* hist_naive_global_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_naive_global_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
