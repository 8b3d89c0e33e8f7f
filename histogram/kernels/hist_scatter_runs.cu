// Last step of sort + run-length: run i of the sorted samples holds key[i] run_counts[i] times,
// so bin key[i] is exactly run_counts[i] (keys are unique after the encode).
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T>
__global__ void hist_scatter_runs_kernel(const T* keys, const unsigned int* run_counts,
                                         const int* run_total, unsigned int bins,
                                         unsigned int* counts) {
  const int runs = *run_total;
  for (int i = static_cast<int>(global_thread_index()); i < runs;
       i += static_cast<int>(global_thread_count())) {
    const unsigned int key = keys[i];
    if (key < bins) counts[key] = run_counts[i];
  }
}

const void* hist_scatter_runs_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_scatter_runs_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
