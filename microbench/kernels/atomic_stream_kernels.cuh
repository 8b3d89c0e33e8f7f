// Kernels that load the shared-memory atomic unit. One block's warps issue a long unrolled
// stream of independent shared atomics; thread 0 records clock64() around it.
#pragma once

#include <cstdint>

namespace atomq::microbench::kernels {

inline constexpr int kSharedWords = 1024;  // 32 banks x 32 rows

// Word of the shared array that this lane hits. Distinct: one bank per lane (each warp its
// own row). k-way conflict: lanes l and l + 32/k share a bank, on different rows. Same: one
// word per warp.
__device__ __forceinline__ unsigned int stream_word_index(int lane, int warp, int kind, int k) {
  switch (kind) {
    case 1: {
      const int banks = 32 / k;
      return static_cast<unsigned int>((lane % banks) + 32 * (lane / banks));
    }
    case 2:
      return static_cast<unsigned int>(warp % kSharedWords);
    default:
      return static_cast<unsigned int>(lane + 32 * (warp % 32));
  }
}

struct StreamArgs {
  int active_lanes;
  int pattern_kind;  // pattern_code() in atomic_stream.cpp
  int conflict_k;
  int iterations;    // unrolled groups per warp
  unsigned int sentinel;  // never equal to the accumulator: keeps results alive
  int verify;
  unsigned long long* block_start;
  unsigned long long* block_end;
  unsigned int* block_smid;
  unsigned int* sink;
  unsigned long long* verify_sum;
};

// kFao: 0 = POPC.INC (result unused), 1 = ADD (result used), 2 = none (control).
template <int kFao, int kCasQuarters>
__global__ void atomic_stream_kernel(StreamArgs args);

__global__ void clock_spin_kernel(long long cycles, unsigned long long* out);

}  // namespace atomq::microbench::kernels

namespace atomq::microbench::kernels {
// Host-side handle of one instantiation, for cudaLaunchKernel / cudaFuncSetAttribute.
const void* atomic_stream_kernel_handle(int fao, int cas_quarters);
const void* clock_spin_kernel_handle();
}  // namespace atomq::microbench::kernels
