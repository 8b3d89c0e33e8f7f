// Last step of sort + run-length: run i of the sorted samples holds key[i] run_counts[i] times,
// so bin key[i] is exactly run_counts[i] (keys are unique after the encode).
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::microbench::kernels {

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
  if (sample_bytes == 1) return reinterpret_cast<const void*>(&hist_scatter_runs_kernel<std::uint8_t>);
  if (sample_bytes == 4) return reinterpret_cast<const void*>(&hist_scatter_runs_kernel<std::uint32_t>);
  return nullptr;
}

}  // namespace atomq::microbench::kernels
