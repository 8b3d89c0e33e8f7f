// Kernel handles and argument blocks of the held-out round 11 workloads (docs/validation.md,
// "Held-out protocol"): each with a baseline as commonly written, the fix a performance engineer
// would write, an ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// The digit counts of one LSD radix-sort pass: the 8-bit digit at kRadixDigitShift of each 32-bit
// key counted per block in kRadixBins shared bins, the block's bins then added to the global counts.
// The top digit is the pass whose keys are already nearly in order, a warp's lanes on one bin.
inline constexpr std::uint32_t kRadixBins = 256;
inline constexpr std::uint32_t kRadixDigitShift = 24;
struct RadixDigitHistArgs {
  const std::uint32_t* keys;
  unsigned long long n;
  std::uint32_t* counts;  // kRadixBins, 0 before a run
  std::uint32_t* sink;
};
const void* radix_digit_hist_shared_atomics_handle();   // one shared atomicAdd per key, the block's bins then global
const void* radix_digit_hist_warp_aggregated_handle();  // a warp's equal digits merged (__match_any_sync), one add each
const void* radix_digit_hist_no_atomics_handle();       // the same reads and digits, summed in registers (ablation)

// One push-style PageRank step: every edge adds its source's share of rank into its target's next
// rank (float adds). Targets follow a power law, the hubs at the lowest ids.
inline constexpr std::uint32_t kPagerankHubs = 2048;  // targets the fix keeps in shared memory (8 KiB)
struct PagerankPushArgs {
  const std::uint32_t* src;  // edges
  const std::uint32_t* dst;  // edges
  const float* contrib;      // vertices: each source's rank over its out-degree
  unsigned long long edges;
  float* next;  // vertices, 0 before a run
  std::uint32_t* sink;
};
const void* pagerank_push_edge_atomics_handle();    // a thread per edge, one global float atomicAdd each
const void* pagerank_push_hub_privatized_handle();  // the hubs' sums in shared memory per block, the rest global
const void* pagerank_push_no_atomics_handle();      // the same reads, summed in registers (ablation)

}  // namespace atomq::validation::kernels
