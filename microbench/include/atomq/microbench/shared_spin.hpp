// Host interface of the shared CAS-spin microbenchmark (kernels/shared_spin_kernels.cu): every SM
// runs `warps_per_sm` warps in blocks of at most 16 warps; each block's warps add 1 into its
// shared words through atomicAdd on float (or double), `lanes_per_word` lanes of a warp on one
// word and `warps_per_word` warps of the block on each word. No CUDA header.
#pragma once

#include <memory>
#include <vector>

#include "atomq/common/device_info.hpp"

namespace atomq::microbench {

struct SharedSpinConfig {
  bool wide = false;       // double instead of float
  int lanes_per_word = 1;  // 1, 2, 4, 8, 16 or 32
  int warps_per_word = 1;  // a divisor of the block's warps (min(warps_per_sm, 16))
  int warps_per_sm = 32;
  int iterations = 256;    // adds per lane
};

struct SharedSpinSample {
  double cycles_per_entry = 0;  // SM cycles per warp entry of the loop: median block / (iterations x warps per SM)
  double sum = 0, expected = 0;  // the words' sum and the adds made
  bool exact = false;            // every add landed
};

class SharedSpinBench {
 public:
  explicit SharedSpinBench(int device);
  ~SharedSpinBench();
  SharedSpinBench(const SharedSpinBench&) = delete;
  SharedSpinBench& operator=(const SharedSpinBench&) = delete;

  const DeviceInfo& device() const;
  // `repeats` timed launches after one untimed one, in launch order.
  std::vector<SharedSpinSample> run(const SharedSpinConfig& config, int repeats);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::microbench
