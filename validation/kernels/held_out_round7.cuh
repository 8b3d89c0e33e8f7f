// Kernel handles and argument blocks of the held-out round 7 workloads (docs/validation.md,
// "Held-out protocol"): written after round 6's results and the live H200 suite of 2026-12-06,
// each with a baseline as commonly written, the fix a performance engineer would write, an
// ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// A sparse matrix-vector product in COO form, nonzeros sorted by row: y[row] += val * x[col].
// Values and x are whole units, so every order of float adds gives the same sums.
struct CooSpmvArgs {
  const std::uint32_t* row;
  const std::uint32_t* col;
  const float* val;
  const float* x;
  unsigned long long nonzeros;
  float* y;  // 0 before a run
  std::uint32_t* sink;
};
const void* coo_spmv_global_handle();         // one global float atomicAdd per nonzero
const void* coo_spmv_warp_segmented_handle(); // a warp's rows reduced by a segmented shuffle scan, one add per row
const void* coo_spmv_no_atomics_handle();     // the same reads and products, summed in registers (ablation)

// The scatter of a bucket sort: each key takes the next free slot of its bucket (a returning
// atomicAdd on the bucket's fill count) and is written there. Bucket = key >> kScatterShift.
inline constexpr unsigned int kScatterShift = 24;                    // 256 buckets of u32 keys
inline constexpr unsigned int kScatterBuckets = 1u << (32 - kScatterShift);
inline constexpr unsigned int kScatterTileItems = 16;                // keys per thread and tile (the fix)
struct BucketScatterArgs {
  const std::uint32_t* keys;
  unsigned long long n;
  const std::uint32_t* bucket_start;  // exclusive prefix of the bucket sizes
  std::uint32_t* fill;                // 0 before a run
  std::uint32_t* out;
  std::uint32_t* sink;
};
const void* bucket_scatter_global_handle();  // one returning global atomicAdd per key
const void* bucket_scatter_tile_ranked_handle();  // a tile's keys ranked in shared memory, one global add per bucket and tile
const void* bucket_scatter_no_atomics_handle();   // the same reads and writes, each key to its own index (ablation)

// A visited bitmap: every id sets its bit with a global atomicOr on its 32-bit word.
struct VisitedBitmapArgs {
  const std::uint32_t* ids;
  unsigned long long n;
  std::uint32_t* bits;  // 0 before a run
  std::uint32_t* sink;
};
const void* visited_bitmap_global_handle();       // one global atomicOr per id
const void* visited_bitmap_warp_merged_handle();  // a warp's ids of one word merged (__match_any_sync), one OR each
const void* visited_bitmap_no_atomics_handle();   // the same reads, folded in registers (ablation)

}  // namespace atomq::validation::kernels
