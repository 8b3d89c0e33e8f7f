// Kernels that load the L2 slices' atomic units with global atomics. Every thread issues a
// long unrolled stream of independent global atomics of one operation at the address its
// spread gives it; RED ops drop the result (REDG), ATOM ops use it (ATOMG).
#pragma once

#include "atomq/common/global_atomic.hpp"

namespace atomq::microbench::kernels {

inline constexpr int kL2Unroll = 4;        // atomics per unrolled group
inline constexpr int kL2LineBytes = 128;   // one L2 line: one slice
inline constexpr int kL2ManyLines = 1024;  // lines of the many_lines spread

// Word index (in elements of word_bytes) that thread `thread` (lane `lane` of grid warp
// `warp`) updates. One line holds 128 / word_bytes words: 64-bit one_line lanes pair up.
__host__ __device__ inline long long l2_word_index(int spread, long long thread, long long warp,
                                                   int lane, int word_bytes) {
  const int words_per_line = kL2LineBytes / word_bytes;
  switch (spread) {
    case static_cast<int>(AddressSpread::kOneAddress):
      return 0;
    case static_cast<int>(AddressSpread::kOneLine):
      return lane % words_per_line;
    case static_cast<int>(AddressSpread::kManyLines):
      return ((lane + 32 * warp) % kL2ManyLines) * words_per_line;
    default:  // kDistinct
      return thread;
  }
}

// The law sweep's word index: the active lanes of the grid take `hot_addresses` words
// round-robin, `stride_words` apart (1: packed into lines; a line's words: one per line), each
// word by `lanes_per_word` neighbouring lanes of one warp (1: every lane its own word).
__host__ __device__ inline long long l2_hot_word_index(long long warp, int lane, int active_lanes,
                                                       int hot_addresses, int stride_words,
                                                       int lanes_per_word) {
  const long long words_per_warp = active_lanes / lanes_per_word;
  return ((warp * words_per_warp + lane / lanes_per_word) % hot_addresses) * stride_words;
}

struct L2AtomicArgs {
  void* words;            // the updated array: room for every spread's highest index
  int spread;             // AddressSpread as int
  int hot_addresses;      // > 0: the law sweep's pattern (l2_hot_word_index) instead of spread
  int stride_words;       // of the law sweep's pattern
  int active_lanes;       // lanes of each warp that issue atomics
  int lanes_per_word;     // of the law sweep's pattern: lanes of one warp on each word
  int dependent;          // nonzero: each atomic's address waits on the previous result
  int iterations;         // unrolled groups per thread
  unsigned int sentinel;  // never equal to the accumulated result: keeps ATOM results alive
  unsigned int* sink;     // written only if the sentinel is hit (never)
};

template <GlobalAtomicOp kOp>
__global__ void l2_atomic_kernel(L2AtomicArgs args);

// Host-side handle of the instantiation for `op`, for cudaLaunchKernel.
const void* l2_atomic_kernel_handle(GlobalAtomicOp op);
// Bytes of one word `op` updates (4, 8 or 16).
int l2_word_bytes(GlobalAtomicOp op);

}  // namespace atomq::microbench::kernels
