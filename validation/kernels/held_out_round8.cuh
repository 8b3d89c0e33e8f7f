// Kernel handles and argument blocks of the held-out round 8 workloads (docs/validation.md,
// "Held-out protocol"): written after the lanes-per-sector term (2026-12-07), each with a
// baseline as commonly written, the fix a performance engineer would write, an ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// A histogram of 15-bit pixel values (an image's intensities) into global counters, one
// atomicAdd per pixel. The bins (128 KB) fit one block's shared memory on Hopper.
inline constexpr unsigned int kPixelBins = 1u << 15;
struct PixelHistArgs {
  const std::uint32_t* pixels;  // values below kPixelBins
  unsigned long long n;
  std::uint32_t* counts;  // kPixelBins, 0 before a run
  std::uint32_t* sink;
};
const void* pixel_hist_global_handle();         // one global atomicAdd per pixel
const void* pixel_hist_warp_merged_handle();    // a warp's pixels of one bin merged (__match_any_sync), one add each
const void* pixel_hist_block_private_handle();  // a block's histogram in shared memory (128 KB), added at the end
const void* pixel_hist_no_atomics_handle();     // the same reads, folded in registers (ablation)

}  // namespace atomq::validation::kernels
