// Per-thread two-phase histogram: each thread counts into a private array (local memory:
// indexed at run time, it cannot live in registers), then adds its non-zero bins to the
// block's shared histogram once. Shared atomics drop to at most `bins` per thread; the price
// is local-memory traffic per sample.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T>
__global__ void __launch_bounds__(policy::TwoPhase::kThreads) hist_two_phase_kernel(HistArgs a) {
  __shared__ unsigned int block_counts[policy::TwoPhase::kMaxBins];
  unsigned int private_counts[policy::TwoPhase::kMaxBins];
  const unsigned int bins = a.bins;
  for (unsigned int b = 0; b < bins; ++b) private_counts[b] = 0u;
  auto count = [&](unsigned int v) {
    if (v < bins) ++private_counts[v];
  };
  with_shared_histogram(block_counts, bins, a.counts, [&] {
    grid_for_each_sample<T>(a.samples, a.n, count);
    // Start at a per-thread offset so the warp's lanes add to different banks.
    for (unsigned int k = 0; k < bins; ++k) {
      const unsigned int b = (k + threadIdx.x) % bins;
      if (private_counts[b] != 0u) atomicAdd(&block_counts[b], private_counts[b]);
    }
  });
}

const void* hist_two_phase_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_two_phase_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
