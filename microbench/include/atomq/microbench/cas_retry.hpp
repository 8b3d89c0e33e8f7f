// Host interface of the global CAS retry microbenchmark (kernels/cas_retry_kernels.cu): a grid
// of one-warp blocks whose active lanes add to a few words through a CAS loop; each launch is
// timed with CUDA events and its attempts counted by the lanes. No CUDA header here.
#pragma once

#include <memory>

#include "atomq/common/device_info.hpp"

namespace atomq::microbench {

struct CasRetryConfig {
  int warps = 1;         // one-warp blocks; all resident up to 32 per SM
  int active_lanes = 32; // lanes of each warp in the loop
  int addresses = 1;     // words, one per 128-byte line; warp w takes word w % addresses
  int updates = 1;       // successful CASes per active lane
};

struct CasRetryLaunch {
  double elapsed_ms = 0;
  double attempts = 0;   // CAS executions of all lanes
  double updates = 0;    // successful ones (active lanes x updates)
  bool exact = false;    // the words sum to the updates (no update lost or doubled)
};

class CasRetryBench {
 public:
  explicit CasRetryBench(int device);
  ~CasRetryBench();
  CasRetryBench(const CasRetryBench&) = delete;
  CasRetryBench& operator=(const CasRetryBench&) = delete;

  const DeviceInfo& device() const;
  // The most one-warp blocks that are all resident at once.
  int max_resident_warps() const;
  CasRetryLaunch run(const CasRetryConfig& config);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::microbench
