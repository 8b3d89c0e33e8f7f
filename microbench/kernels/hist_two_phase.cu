// Per-thread two-phase histogram (seed 001, 5.4): each thread counts into a private array
// (local memory: indexed at run time, it cannot live in registers), then adds its non-zero bins
// to the block's shared histogram once. Shared atomics drop to at most `bins` per thread; the
// price is local-memory traffic per sample.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::microbench::kernels {

template <typename T>
__global__ void __launch_bounds__(256) hist_two_phase_kernel(HistArgs a) {
  __shared__ unsigned int block_counts[kTwoPhaseMaxBins];
  unsigned int private_counts[kTwoPhaseMaxBins];
  const unsigned int bins = a.bins;
  for (unsigned int b = 0; b < bins; ++b) private_counts[b] = 0u;
  zero_shared(block_counts, bins);
  __syncthreads();
  auto count = [&](unsigned int v) {
    if (v < bins) ++private_counts[v];
  };
  for_each_sample(static_cast<const T*>(a.samples), a.n, global_thread_index(),
                  global_thread_count(), count);
  // Start at a per-thread offset so the warp's lanes add to different banks.
  for (unsigned int k = 0; k < bins; ++k) {
    const unsigned int b = (k + threadIdx.x) % bins;
    if (private_counts[b] != 0u) atomicAdd(&block_counts[b], private_counts[b]);
  }
  __syncthreads();
  merge_to_global(block_counts, bins, a.counts);
}

const void* hist_two_phase_handle(int sample_bytes) {
  if (sample_bytes == 1) return reinterpret_cast<const void*>(&hist_two_phase_kernel<std::uint8_t>);
  if (sample_bytes == 4) return reinterpret_cast<const void*>(&hist_two_phase_kernel<std::uint32_t>);
  return nullptr;
}

}  // namespace atomq::microbench::kernels
