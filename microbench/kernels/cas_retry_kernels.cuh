// A global CAS retry loop under contention: the active lanes of every warp add 1 to one of
// `addresses` words through atomicCAS, retrying until their compare succeeds, and count their
// attempts. The retry-law sweep (calibration/src/cas_retry_sweep.cpp) measures it.
#pragma once

namespace atomq::microbench::kernels {

struct CasRetryArgs {
  unsigned int* words;            // `addresses` words, `word_stride` apart
  int addresses;                  // grid warp w updates word w % addresses
  int word_stride;                // in words (32: one word per 128-byte line)
  int active_lanes;               // lanes of each warp in the loop
  int updates;                    // successful CASes per active lane
  unsigned int* attempts;         // per thread: CAS executions (0 for idle lanes)
};

__global__ void cas_retry_kernel(CasRetryArgs args);

}  // namespace atomq::microbench::kernels
