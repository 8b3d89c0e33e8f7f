// Held-out round 10: a transposed sparse matrix-vector product from CSR and the backward of an
// embedding lookup over Zipf-skewed rows.
#include "held_out_round10.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {
constexpr unsigned int kWarpSize = 32u;
}  // namespace

__global__ void transpose_spmv_scatter_atomics_kernel(TransposeSpmvArgs a) {
  for (unsigned long long j = global_thread(); j < a.nnz; j += global_threads())
    atomicAdd(&a.y[a.col[j]], a.val[j] * a.x[a.row_of[j]]);
}

// One thread per column of A (a row of A^T): its entries are contiguous in the CSC arrays, so the
// sum stays in a register and y[c] is written once, by its only writer.
__global__ void transpose_spmv_gather_csc_kernel(TransposeSpmvArgs a) {
  for (unsigned long long c = global_thread(); c < a.cols; c += global_threads()) {
    float sum = 0.0f;
    for (std::uint32_t j = a.csc_offsets[c]; j < a.csc_offsets[c + 1]; ++j) sum += a.csc_val[j] * a.x[a.csc_row[j]];
    a.y[c] = sum;
  }
}

// The scatter's loads (col, val, row_of and x through row_of) and product, without its atomic.
__global__ void transpose_spmv_no_atomics_kernel(TransposeSpmvArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long j = global_thread(); j < a.nnz; j += global_threads())
    acc ^= a.col[j] * 2654435761u + __float_as_uint(a.val[j] * a.x[a.row_of[j]]);
  keep_alive(acc, a.sink);
}

// The grid's threads are whole warps (256 per block): a warp per lookup, each lane two floats of
// the row (lane and lane + 32), so a warp's adds fall on two whole 128-byte lines.
__global__ void embedding_grad_row_atomics_kernel(EmbeddingGradArgs a) {
  const unsigned int lane = threadIdx.x % kWarpSize;
  for (unsigned long long i = global_thread() / kWarpSize; i < a.n; i += global_threads() / kWarpSize) {
    const float* g = a.grad + i * kEmbeddingDim;
    float* w = a.table + static_cast<unsigned long long>(a.idx[i]) * kEmbeddingDim;
    atomicAdd(&w[lane], g[lane]);
    atomicAdd(&w[lane + kWarpSize], g[lane + kWarpSize]);
  }
}

// Each warp walks a contiguous chunk of the lookups sorted by row, summing a run of equal rows in
// registers and adding it once per float when the run (or the chunk) ends: a run that crosses a
// chunk edge is added by each warp that holds part of it, so the adds stay atomic.
__global__ void embedding_grad_sorted_segments_kernel(EmbeddingGradArgs a) {
  const unsigned int lane = threadIdx.x % kWarpSize;
  const unsigned long long warps = global_threads() / kWarpSize;
  const unsigned long long chunk = (a.n + warps - 1) / warps;
  const unsigned long long begin = global_thread() / kWarpSize * chunk;
  const unsigned long long end = begin + chunk < a.n ? begin + chunk : a.n;
  float lo = 0.0f, hi = 0.0f;
  for (unsigned long long i = begin; i < end; ++i) {
    const std::uint32_t row = a.sorted_idx[i];
    const float* g = a.grad + static_cast<unsigned long long>(a.order[i]) * kEmbeddingDim;
    lo += g[lane];
    hi += g[lane + kWarpSize];
    if (i + 1 == end || a.sorted_idx[i + 1] != row) {
      float* w = a.table + static_cast<unsigned long long>(row) * kEmbeddingDim;
      atomicAdd(&w[lane], lo);
      atomicAdd(&w[lane + kWarpSize], hi);
      lo = hi = 0.0f;
    }
  }
}

// The row atomics' loads (idx and the lookup's two floats per lane), without their atomics.
__global__ void embedding_grad_no_atomics_kernel(EmbeddingGradArgs a) {
  const unsigned int lane = threadIdx.x % kWarpSize;
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread() / kWarpSize; i < a.n; i += global_threads() / kWarpSize) {
    const float* g = a.grad + i * kEmbeddingDim;
    acc ^= a.idx[i] * 2654435761u + __float_as_uint(g[lane]) + 3u * __float_as_uint(g[lane + kWarpSize]);
  }
  keep_alive(acc, a.sink);
}

const void* transpose_spmv_scatter_atomics_handle() { return handle(&transpose_spmv_scatter_atomics_kernel); }
const void* transpose_spmv_gather_csc_handle() { return handle(&transpose_spmv_gather_csc_kernel); }
const void* transpose_spmv_no_atomics_handle() { return handle(&transpose_spmv_no_atomics_kernel); }
const void* embedding_grad_row_atomics_handle() { return handle(&embedding_grad_row_atomics_kernel); }
const void* embedding_grad_sorted_segments_handle() { return handle(&embedding_grad_sorted_segments_kernel); }
const void* embedding_grad_no_atomics_handle() { return handle(&embedding_grad_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
