// Kernel handles and argument blocks of the held-out round 12 workloads (docs/validation.md,
// "Held-out protocol"): each with a baseline as commonly written, the fix a performance engineer
// would write, an ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// The depth pass of a software rasterizer: each fragment keeps the nearest depth of its pixel by a
// global atomicMin. Fragments come rectangle by rectangle (row-major), as a rasterizer emits them.
struct DepthTestArgs {
  const std::uint32_t* pixel;  // fragments
  const std::uint32_t* depth;  // fragments
  unsigned long long fragments;
  std::uint32_t* zbuffer;  // pixels, 0xFFFFFFFF before a run
  std::uint32_t* sink;
};
const void* depth_test_atomic_min_handle();  // one global atomicMin per fragment
const void* depth_test_early_test_handle();  // the pixel's depth read first, atomicMin only where nearer
const void* depth_test_no_atomics_handle();  // the same reads, folded in registers (ablation)

// The absolute maximum of a tensor (the amax of FP8 scaling): each thread's maximum of |x| over
// its grid-stride share, then one global atomicMax of its bits (|x| >= 0 orders as its bits).
struct AmaxArgs {
  const float* x;
  unsigned long long n;
  std::uint32_t* amax;  // 0 before a run
  std::uint32_t* sink;
};
const void* amax_per_thread_handle();   // one global atomicMax per thread
const void* amax_per_block_handle();    // the block's maximum first (warp and shared reduce), one atomicMax per block
const void* amax_no_atomics_handle();   // the same reads and maxima, no atomic (ablation)

}  // namespace atomq::validation::kernels
