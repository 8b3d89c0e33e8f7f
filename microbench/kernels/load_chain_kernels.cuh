// Dependent global loads: each warp reads its next chunk only after its last load returned (the
// address adds the loaded value, always 0), so every warp keeps exactly one load request in
// flight. Time / steps is the round trip of a load at that many requests in flight per SM
// (docs/calibration.md, "The load round-trip section").
#pragma once

namespace atomq::microbench::kernels {

struct LoadChainArgs {
  const unsigned int* words;            // zero-filled
  unsigned long long footprint_words;   // a power of two; addresses wrap inside it
  int steps;                            // dependent loads per lane
  int lane_words;                       // 1, 2 or 4: 4-, 8- or 16-byte loads per lane
  int scattered;                        // 1: each lane its own 128-byte line (4-byte loads)
  unsigned int* sink;                   // written only if the loads were not all 0 (never)
};
__global__ void load_chain_kernel(LoadChainArgs args);

}  // namespace atomq::microbench::kernels
