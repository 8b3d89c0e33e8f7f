// Kernel handles and argument blocks of the held-out round 3 workloads (docs/validation.md,
// "Held-out protocol"): written after round 2's results and the model changes they led to, each
// with a baseline as commonly written, the fix a performance engineer would write, an ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// Key counts in a hash table of buckets of kChainSlots slots, bucket = key % buckets
// (held_out_round3.cu). Every bucket holds at most kChainSlots distinct keys of the input.
inline constexpr std::uint32_t kChainSlots = 4;
inline constexpr std::uint32_t kEmptyKey = 0xFFFFFFFFu;
struct ChainArgs {
  const std::uint32_t* keys;  // the tokens
  unsigned long long n;
  std::uint32_t buckets;
  std::uint32_t* slot_keys;    // buckets x kChainSlots, kEmptyKey before a run
  std::uint32_t* slot_counts;  // buckets x kChainSlots, 0 before a run
  int* locks;                  // one per bucket, 0 before a run
};
const void* chain_locked_handle();      // the bucket's spin lock around its scan and update
const void* chain_lock_free_handle();   // atomicCAS on a slot's key, atomicAdd on its count
const void* chain_unlocked_handle();    // the same scan and updates, no lock, no atomics (ablation; racy)

// The k-means update step: each point's coordinates added to its centroid's sums, and its count.
inline constexpr std::uint32_t kKmeansDims = 4;
struct KmeansArgs {
  const float* points;          // n x kKmeansDims
  const std::uint32_t* labels;  // the point's centroid
  unsigned long long n;
  std::uint32_t centroids;      // at most kKmeansMaxCentroids
  float* sums;                  // centroids x kKmeansDims, 0 before a run
  std::uint32_t* counts;        // centroids, 0 before a run
  std::uint32_t* sink;
};
inline constexpr std::uint32_t kKmeansMaxCentroids = 256;
const void* kmeans_global_handle();      // a float atomicAdd per coordinate and an atomicAdd per point
const void* kmeans_block_private_handle();  // the block's sums in shared memory, merged once per block
const void* kmeans_no_atomics_handle();  // the same reads, summed in registers (ablation)

}  // namespace atomq::validation::kernels
