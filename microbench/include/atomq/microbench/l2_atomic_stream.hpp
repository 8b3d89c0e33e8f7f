// Host interface of the L2 atomic-stream microbenchmark: a grid of `warps_per_sm` warps per SM
// issues global atomics of one operation over one address spread, so the L2 slices' atomic
// units serve them; launches are timed with CUDA events. No CUDA header here, so calibration
// code stays plain C++.
#pragma once

#include <memory>
#include <vector>

#include "atomq/common/device_info.hpp"
#include "atomq/common/global_atomic.hpp"

namespace atomq::microbench {

inline constexpr int kL2AtomicUnroll = 4;  // atomics_per_thread is a multiple of this
inline constexpr int kL2MaxHotAddresses = 1 << 16;  // hot words at most; one per line: 8 MiB

struct L2AtomicConfig {
  GlobalAtomicOp op = GlobalAtomicOp::kRedAddU32;
  AddressSpread spread = AddressSpread::kOneAddress;
  int warps_per_sm = 32;
  int atomics_per_thread = 64;  // rounded up to a multiple of kL2AtomicUnroll
  // The law sweep's pattern (docs/calibration.md, "The L2 law sweep"); hot_addresses 0 keeps
  // `spread`. Otherwise the active lanes of the grid take `hot_addresses` words round-robin,
  // one per line (packed false) or consecutive words (packed true).
  int hot_addresses = 0;
  bool packed = false;
  int active_lanes = 32;   // lanes per warp that issue atomics (1: a hash probe's one lane)
  // Neighbouring lanes of one warp on each hot word (divides active_lanes): a warp instruction
  // then sends that many same-word updates, as a histogram of smooth data does.
  int lanes_per_word = 1;
  bool dependent = false;  // ATOM ops: each atomic's address waits on the previous result
};

struct L2AtomicLaunch {
  double elapsed_ms = 0;          // event time of the launch
  long long threads = 0;          // threads in the grid
  long long atomics_per_thread = 0;
  long long warp_instructions = 0;  // warp-level global atomic instructions of the launch
  long long addresses = 0;        // distinct words the grid updates
};

class L2AtomicStreamBench {
 public:
  explicit L2AtomicStreamBench(int device);
  ~L2AtomicStreamBench();
  L2AtomicStreamBench(const L2AtomicStreamBench&) = delete;
  L2AtomicStreamBench& operator=(const L2AtomicStreamBench&) = delete;

  const DeviceInfo& device() const;
  // One launch, timed with CUDA events.
  L2AtomicLaunch run(const L2AtomicConfig& config);
  // `repeats` launches; their times in launch order.
  std::vector<double> time_ms(const L2AtomicConfig& config, int repeats);
  // atomics_per_thread for which one launch of `config` takes about target_ms (trial
  // launches, scaled from the last; one-address cells get few atomics, spread ones many).
  int atomics_per_thread_for(L2AtomicConfig config, double target_ms);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::microbench
