// Scatter-add targets: a float atomicAdd of one value per sample into bins[sample], the
// pattern of sparse gradients, particle deposits and weighted histograms. Unit values, so the
// float sums check exactly against the reference counts (every bin sum <= 2^24 is exact).
//   scatter_add_global:  one global float atomicAdd per sample (REDG.E.ADD.F32 to L2: a hot
//                        index serializes at one L2 slice)
//   scatter_add_private: the privatized fix: a float copy of the bins per block in shared
//                        memory (Hopper has no shared float add: a CAS loop), merged once
//                        per block with one global float atomicAdd per non-zero bin
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

namespace {
constexpr float kValue = 1.0f;
}

template <typename T>
__global__ void __launch_bounds__(policy::ScatterAddGlobal::kThreads) hist_scatter_add_global_kernel(HistArgs a) {
  const unsigned int bins = a.bins;
  float* sums = reinterpret_cast<float*>(a.counts);
  auto add = [&](unsigned int v) {
    if (v < bins) atomicAdd(&sums[v], kValue);
  };
  grid_for_each_sample<T>(a.samples, a.n, add);
}

template <typename T>
__global__ void __launch_bounds__(policy::ScatterAddPrivate::kThreads) hist_scatter_add_private_kernel(HistArgs a) {
  extern __shared__ float block_sums[];
  for (unsigned int b = threadIdx.x; b < a.bins; b += blockDim.x) block_sums[b] = 0.0f;
  __syncthreads();
  const T* samples = static_cast<const T*>(a.samples);
  const unsigned long long stride = global_thread_count();
  for (unsigned long long i = global_thread_index(); i < a.n; i += stride) {
    const unsigned int v = samples[i];
    if (v < a.bins) atomicAdd(&block_sums[v], kValue);
  }
  __syncthreads();
  float* sums = reinterpret_cast<float*>(a.counts);
  for (unsigned int b = threadIdx.x; b < a.bins; b += blockDim.x)
    if (block_sums[b] != 0.0f) atomicAdd(&sums[b], block_sums[b]);
}

const void* hist_scatter_add_global_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_scatter_add_global_kernel<decltype(t)>); });
}

const void* hist_scatter_add_private_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_scatter_add_private_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
