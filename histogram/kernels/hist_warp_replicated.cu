// Replicated per-warp sub-histograms: warp w counts into its own copy, so warps never meet on a
// word; copies are padded by one word so that bin b of neighbouring copies lies in different
// banks (the merge reads them without conflicts). 16-byte loads.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T>
__global__ void __launch_bounds__(policy::WarpReplicated::kThreads) hist_warp_replicated_kernel(HistArgs a) {
  extern __shared__ unsigned int sub_counts[];  // warps x (bins + 1)
  const unsigned int bins = a.bins;
  const unsigned int stride = bins + 1u;
  const unsigned int warps = blockDim.x / 32u;
  unsigned int* mine = sub_counts + (threadIdx.x / 32u) * stride;
  auto count = [&](unsigned int v) {
    if (v < bins) atomicAdd(&mine[v], 1u);
  };
  for_each_sample(static_cast<const T*>(a.samples), a.n, global_thread_index(),
                  global_thread_count(), count, [&] {
                    zero_shared(sub_counts, warps * stride);
                    __syncthreads();
                  });
  __syncthreads();
  for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x) {
    unsigned int sum = 0u;
    for (unsigned int w = 0; w < warps; ++w) sum += sub_counts[w * stride + b];
    if (sum != 0u) atomicAdd(&a.counts[b], sum);
  }
}

const void* hist_warp_replicated_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_warp_replicated_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
