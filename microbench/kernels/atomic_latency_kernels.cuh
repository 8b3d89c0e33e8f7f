// Kernels that measure the unloaded latency of one shared atomic: a single warp per SM runs
// a chain in which each atomic's address depends on the previous atomic's result.
#pragma once

namespace atomq::microbench::kernels {

struct LatencyArgs {
  int active_lanes;
  int pattern_kind;   // pattern_code() in atomic_stream.cpp
  int conflict_k;
  int iterations;     // groups of kLatencyUnroll dependent atomics
  unsigned int zero;  // 0 at run time; the compiler cannot know it, so the chain is real
  unsigned long long* block_cycles;
  unsigned int* sink;
};

inline constexpr int kLatencyUnroll = 8;

// kOp: 1 = ATOMS.ADD (result used), 3 = ATOMS.CAS.
template <int kOp>
__global__ void atomic_latency_kernel(LatencyArgs args);

const void* atomic_latency_kernel_handle(int op);

}  // namespace atomq::microbench::kernels
