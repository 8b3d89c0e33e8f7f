// Host interface of the atomic-stream microbenchmark: it loads the shared-memory atomic unit
// of every SM with a controlled instruction stream and measures cycles per warp instruction.
// No CUDA header here, so calibration code stays plain C++.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "atomq/common/device_info.hpp"
#include "atomq/common/shared_atomic.hpp"

namespace atomq::microbench {

inline constexpr int kStreamUnroll = 32;    // atomics per unrolled group in the kernel
inline constexpr int kCasSlotsPerGroup = 4; // c is resolved in quarters: cas_quarters / 4

struct StreamConfig {
  int warps_per_sm = 1;       // parallel load n
  int active_lanes = 32;      // e
  int cas_quarters = 0;       // c = cas_quarters / 4 (0..4)
  OpVariant op = OpVariant::kAdd;  // what the non-CAS slots compile to (checked by the gpu tests)
  bool control = false;         // zero-atomic control: the same loop with no atomic in it
  Pattern pattern;
  int atomics_per_warp = 1024;  // rounded up to a multiple of kStreamUnroll
  bool verify = false;          // also sum the shared words (pure fetch-and-add streams only)
};

struct StreamResult {
  // cycles per warp-level atomic instruction, one entry per SM that ran the expected load
  std::vector<double> cycles_per_inst;
  int sms_measured = 0;
  int sms_skipped = 0;          // SMs that got an unexpected number of blocks
  long long atomics_per_warp = 0;
  unsigned long long verify_sum = 0;  // sum of all shared words of all blocks (verify mode)
  double elapsed_ms = 0.0;
};

// Unloaded latency: one warp per SM, each atomic's address depends on the previous result.
struct LatencyConfig {
  LatencyOp op = LatencyOp::kAdd;
  Pattern pattern;
  int active_lanes = 32;
  int chain_length = 4096;  // dependent atomics per warp (rounded up to the unroll)
};

struct LatencyResult {
  std::vector<double> cycles_per_atomic;  // one entry per SM
  long long chain_length = 0;
};

class AtomicStreamBench {
 public:
  explicit AtomicStreamBench(int device);
  ~AtomicStreamBench();
  AtomicStreamBench(const AtomicStreamBench&) = delete;
  AtomicStreamBench& operator=(const AtomicStreamBench&) = delete;

  const DeviceInfo& device() const;
  StreamResult run(const StreamConfig& config);
  LatencyResult run_latency(const LatencyConfig& config);
  // SM clock under load, from clock64() against device events over a ~2 ms spin.
  double measure_sm_clock_mhz();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::microbench
