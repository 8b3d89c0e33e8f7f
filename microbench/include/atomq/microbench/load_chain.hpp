// Host interface of the dependent-load microbenchmark (kernels/load_chain_kernels.cu): a grid of
// `warps_per_sm` warps per SM, each with one global load in flight at a time, over a footprint
// that L2 holds or one that only DRAM holds. Launches are timed with CUDA events. No CUDA header.
#pragma once

#include <memory>
#include <vector>

#include "atomq/common/device_info.hpp"

namespace atomq::microbench {

// Where the loaded lines live.
enum class LoadResidency {
  kL2,    // an 8 MiB footprint, read once before the timed launches
  kDram,  // a 1 GiB footprint walked in order: every line is gone from L2 when it comes round
};

struct LoadChainConfig {
  LoadResidency residency = LoadResidency::kDram;
  int warps_per_sm = 32;
  // 32-byte sectors one warp's load asks for: 4, 8, 16 (32 lanes of 4, 8, 16 bytes side by
  // side) or 32 (4 bytes per lane, each lane its own line).
  int sectors_per_request = 4;
  int steps = 256;  // dependent loads per lane
};

class LoadChainBench {
 public:
  explicit LoadChainBench(int device);
  ~LoadChainBench();
  LoadChainBench(const LoadChainBench&) = delete;
  LoadChainBench& operator=(const LoadChainBench&) = delete;

  const DeviceInfo& device() const;
  // `repeats` timed launches after one untimed one; their times (ms) in launch order.
  std::vector<double> time_ms(const LoadChainConfig& config, int repeats);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::microbench
