// A float or double add into shared memory is a CAS loop on sm_90 (ATOMS.CAST.SPIN): a lane
// retries until no other lane changed its word between its read and its CAS. These kernels
// measure what one warp entry of that loop costs an SM by the lanes of a warp on one word, the
// warps of a block on one word and the warps per SM. Thread 0 of each block records clock64()
// around the stream.
#pragma once

namespace atomq::microbench::kernels {

struct SharedSpinArgs {
  int lanes_per_word;  // lanes of a warp on one word: a warp touches 32 / lanes_per_word words
  int warps_per_word;  // warps of a block on each of its words (a divisor of the block's warps)
  int iterations;      // adds per lane
  unsigned long long* block_cycles;
  double* total;       // the sum of every block's words: every add landed when it is exact
};

// kWide: 64-bit adds (double) instead of 32-bit (float). Dynamic shared memory: the block's
// words, (warps / warps_per_word) x 32 / lanes_per_word of them.
template <bool kWide>
__global__ void shared_spin_kernel(SharedSpinArgs args);

const void* shared_spin_kernel_handle(bool wide);

}  // namespace atomq::microbench::kernels
