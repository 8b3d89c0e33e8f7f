// Shared histograms whose counters Hopper cannot add natively, and the integer fix of the
// float one (per-instruction counts show each CAS loop: docs/model.md, "Atomic sites"):
//   block_u64:               unsigned long long counters per block; a shared 64-bit
//                            atomicAdd is a CAS loop (ATOMS.CAST.SPIN.64). Its fix:
//                            block_grid_stride (32-bit counters, ATOMS.POPC.INC).
//   scatter_add_private_int: scatter_add_private's fix: unit float sums counted in unsigned int
//                            per block (a native atomic), converted to float once at the merge.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T>
__global__ void __launch_bounds__(policy::BlockGridStride::kThreads) hist_block_u64_kernel(HistArgs a) {
  extern __shared__ unsigned long long block_counts64[];
  for (unsigned int b = threadIdx.x; b < a.bins; b += blockDim.x) block_counts64[b] = 0;
  __syncthreads();
  const T* samples = static_cast<const T*>(a.samples);
  const unsigned long long stride = global_thread_count();
  for (unsigned long long i = global_thread_index(); i < a.n; i += stride) {
    const unsigned int v = samples[i];
    if (v < a.bins) atomicAdd(&block_counts64[v], 1ull);
  }
  __syncthreads();
  for (unsigned int b = threadIdx.x; b < a.bins; b += blockDim.x)
    if (block_counts64[b] != 0) atomicAdd(&a.counts[b], static_cast<unsigned int>(block_counts64[b]));
}

template <typename T>
__global__ void __launch_bounds__(policy::ScatterAddPrivate::kThreads) hist_scatter_add_private_int_kernel(HistArgs a) {
  extern __shared__ unsigned int block_units[];
  for (unsigned int b = threadIdx.x; b < a.bins; b += blockDim.x) block_units[b] = 0;
  __syncthreads();
  const T* samples = static_cast<const T*>(a.samples);
  const unsigned long long stride = global_thread_count();
  for (unsigned long long i = global_thread_index(); i < a.n; i += stride) {
    const unsigned int v = samples[i];
    if (v < a.bins) atomicAdd(&block_units[v], 1u);
  }
  __syncthreads();
  float* sums = reinterpret_cast<float*>(a.counts);
  for (unsigned int b = threadIdx.x; b < a.bins; b += blockDim.x)
    if (block_units[b] != 0) atomicAdd(&sums[b], static_cast<float>(block_units[b]));
}

const void* hist_block_u64_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_block_u64_kernel<decltype(t)>); });
}

const void* hist_scatter_add_private_int_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes,
                         [](auto t) { return handle(&hist_scatter_add_private_int_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
