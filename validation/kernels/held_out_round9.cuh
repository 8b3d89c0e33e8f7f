// Kernel handles and argument blocks of the held-out round 9 workloads (docs/validation.md,
// "Held-out protocol"): each with a baseline as commonly written, the fix a performance engineer
// would write, an ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// Occurrences of each key of a sorted key array (CSR row offsets from sorted COO rows): one
// atomicAdd per key, a warp's 32 adjacent keys on a few neighbouring counters.
struct SortedKeyCountArgs {
  const std::uint32_t* keys;  // ascending
  unsigned long long n;
  std::uint32_t* counts;  // the largest key + 1, 0 before a run
  std::uint32_t* sink;
};
const void* sorted_key_count_global_handle();       // one global atomicAdd per key
const void* sorted_key_count_warp_merged_handle();  // a warp's equal keys merged (__match_any_sync), one add each
const void* sorted_key_count_no_atomics_handle();   // the same reads, folded in registers (ablation)

// Particle-in-cell charge deposition after a sort by cell: grid[cell] += charge, float adds.
struct SortedParticleDepositArgs {
  const std::uint32_t* cell;  // ascending
  const float* charge;
  unsigned long long n;
  float* grid;  // the last cell + 1, 0 before a run
  std::uint32_t* sink;
};
const void* sorted_particle_deposit_global_handle();       // one global float atomicAdd per particle
const void* sorted_particle_deposit_warp_merged_handle();  // a warp's charges of one cell summed in lane order, one add
const void* sorted_particle_deposit_no_atomics_handle();   // the same reads, folded in registers (ablation)

}  // namespace atomq::validation::kernels
