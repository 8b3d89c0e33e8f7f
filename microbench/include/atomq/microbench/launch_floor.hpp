// Host interface of the launch-floor microbenchmark (kernels/launch_floor_kernels.cu): an empty
// kernel launched with a given grid. The caller times the launches (the collector's
// gpu__time_duration, as every analyzed kernel is timed). No CUDA header.
#pragma once

#include <functional>
#include <memory>

#include "atomq/common/device_info.hpp"

namespace atomq::microbench {

class LaunchFloorBench {
 public:
  explicit LaunchFloorBench(int device);
  ~LaunchFloorBench();
  LaunchFloorBench(const LaunchFloorBench&) = delete;
  LaunchFloorBench& operator=(const LaunchFloorBench&) = delete;

  const DeviceInfo& device() const;
  // One launch of the empty kernel, `blocks` x `threads_per_block` (validated here).
  std::function<void()> launcher(long long blocks, int threads_per_block) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::microbench
