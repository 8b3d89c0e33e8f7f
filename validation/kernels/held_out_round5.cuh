// Kernel handles and argument blocks of the held-out round 5 workloads (docs/validation.md,
// "Held-out protocol"): written after round 4's results, each with a baseline as commonly written,
// the fix a performance engineer would write, an ablation. Both reduce floats.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// Energy deposited per depth bin: particle i adds energy[i] (a whole number of units, so every
// order of adds gives the same float) into bin depth[i] of kDepthBins.
inline constexpr std::uint32_t kDepthBins = 512;
struct DepositArgs {
  const std::uint16_t* depth;  // bin per particle, below kDepthBins
  const float* energy;
  unsigned long long n;
  float* dose;                 // kDepthBins, 0 before a run
  std::uint32_t* sink;
};
const void* deposit_global_handle();         // one global float atomicAdd per particle
const void* deposit_block_private_handle();  // the block's bins in shared memory (float adds), merged once
const void* deposit_no_atomics_handle();     // the same reads and bin, summed in registers (ablation)

// The maximum of each row of kRowLength scores (a softmax's first pass), written as a float max
// through a global CAS loop per score. Rows are whole warps: a warp's 32 scores share a row.
inline constexpr std::uint32_t kRowLength = 256;
struct RowMaxArgs {
  const float* scores;
  unsigned long long n;  // a multiple of kRowLength
  float* row_max;        // n / kRowLength, -inf before a run
  std::uint32_t* sink;
};
const void* row_max_cas_handle();        // one global CAS loop per score
const void* row_max_warp_first_handle();  // the warp's max by shuffles, then one CAS loop per warp
const void* row_max_no_atomics_handle();  // the same reads, summed in registers (ablation)

}  // namespace atomq::validation::kernels
