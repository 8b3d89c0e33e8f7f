// Kernel handles and argument blocks of the held-out round 4 workloads (docs/validation.md,
// "Held-out protocol"): written after round 3's results, each with a baseline as commonly written,
// the fix a performance engineer would write, an ablation. Both count into u32 bins.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// Points counted per voxel of a kVoxelSide^3 grid. A point is packed x | y << 8 | z << 16 (one
// byte per coordinate, each below kVoxelSide); its voxel is (z * kVoxelSide + y) * kVoxelSide + x.
inline constexpr std::uint32_t kVoxelSide = 16;
inline constexpr std::uint32_t kVoxels = kVoxelSide * kVoxelSide * kVoxelSide;  // 16 KiB of u32 counts
struct VoxelArgs {
  const std::uint32_t* points;  // packed coordinates
  unsigned long long n;
  std::uint32_t* counts;        // kVoxels, 0 before a run
  std::uint32_t* sink;
};
const void* voxel_global_handle();         // one global atomicAdd per point
const void* voxel_block_private_handle();  // the block's counts in shared memory, merged once per block
const void* voxel_no_atomics_handle();     // the same reads and voxel index, summed in registers (ablation)

// Adjacent letter pairs of a text over kBigramLetters letters (bytes below kBigramLetters), the
// pair (text[i], text[i + 1]) counted in bin text[i] * kBigramLetters + text[i + 1].
inline constexpr std::uint32_t kBigramLetters = 32;
inline constexpr std::uint32_t kBigramBins = kBigramLetters * kBigramLetters;
struct BigramArgs {
  const std::uint8_t* text;
  unsigned long long n;    // letters: n - 1 pairs
  std::uint32_t* counts;   // kBigramBins, 0 before a run
  std::uint32_t* sink;
};
const void* bigram_global_handle();         // one global atomicAdd per pair
const void* bigram_block_private_handle();  // the block's bins in shared memory, merged once per block
const void* bigram_no_atomics_handle();     // the same reads and bin index, summed in registers (ablation)

}  // namespace atomq::validation::kernels
