// Zeroes the global counters before a histogram kernel. It releases its dependent at once
// (programmatic dependent launch, Hopper and later), so the histogram kernel starts streaming
// its input while this runs; the histogram waits for the zeroes only before its first global
// update (wait_for_zeroed_counts in hist_common.cuh).
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::microbench::kernels {

__global__ void __launch_bounds__(256) hist_zero_counts_kernel(unsigned int* counts,
                                                                unsigned long long words) {
  allow_dependent_launch();
  for (unsigned long long i = global_thread_index(); i < words; i += global_thread_count())
    counts[i] = 0u;
}

const void* hist_zero_counts_handle() {
  return reinterpret_cast<const void*>(&hist_zero_counts_kernel);
}

}  // namespace atomq::microbench::kernels
