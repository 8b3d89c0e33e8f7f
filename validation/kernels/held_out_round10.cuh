// Kernel handles and argument blocks of the held-out round 10 workloads (docs/validation.md,
// "Held-out protocol"): each with a baseline as commonly written, the fix a performance engineer
// would write, an ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// A transposed sparse matrix-vector product y = A^T x, A in CSR form: y[col] += val * x[row] per
// nonzero (float adds), and the same product from the transpose stored as CSC (built at setup).
struct TransposeSpmvArgs {
  const std::uint32_t* col;     // nnz, A's column of each nonzero (rows sorted)
  const float* val;             // nnz
  const std::uint32_t* row_of;  // nnz, A's row of each nonzero (ascending)
  const float* x;               // A's rows
  unsigned long long nnz;
  const std::uint32_t* csc_offsets;  // A's columns + 1: each column's entries in csc_row and csc_val
  const std::uint32_t* csc_row;      // nnz, ascending within a column
  const float* csc_val;              // nnz
  std::uint32_t cols;
  float* y;  // A's columns, 0 before a run
  std::uint32_t* sink;
};
const void* transpose_spmv_scatter_atomics_handle();  // a thread per nonzero, one global float atomicAdd each
const void* transpose_spmv_gather_csc_handle();       // a thread per column of A, summed in a register, one store
const void* transpose_spmv_no_atomics_handle();       // the scatter's reads, folded in registers (ablation)

// The backward of an embedding lookup: each lookup's gradient row of kEmbeddingDim floats added
// into its table row.
inline constexpr std::uint32_t kEmbeddingDim = 64;  // two floats per lane of a warp
struct EmbeddingGradArgs {
  const std::uint32_t* idx;         // n, each lookup's table row
  const float* grad;                // n x kEmbeddingDim
  const std::uint32_t* sorted_idx;  // n, idx in ascending order
  const std::uint32_t* order;       // n, the lookup of each sorted position (stable)
  unsigned long long n;
  float* table;  // rows x kEmbeddingDim, 0 before a run
  std::uint32_t* sink;
};
const void* embedding_grad_row_atomics_handle();      // a warp per lookup, two global float atomicAdds per lane
const void* embedding_grad_sorted_segments_handle();  // a warp's runs of equal rows summed, one add per run and float
const void* embedding_grad_no_atomics_handle();       // the row atomics' reads, folded in registers (ablation)

}  // namespace atomq::validation::kernels
