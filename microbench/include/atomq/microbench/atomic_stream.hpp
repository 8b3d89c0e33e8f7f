// Host interface of the atomic-stream microbenchmark: it loads the shared-memory atomic unit
// of every SM with a controlled instruction stream and measures cycles per warp instruction.
// No CUDA header here, so calibration code stays plain C++.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace atomq::microbench {

// What a non-CAS slot of the stream compiles to (checked against the SASS in the gpu tests).
enum class FaoVariant {
  kPopcInc,  // atomicAdd(p, 1u), result unused -> ATOMS.POPC.INC
  kAdd,      // atomicAdd(p, 1u), result used   -> ATOMS.ADD
  kNone,     // zero-atomic control: the same loop with no atomic in it
};

// Where the active lanes of one warp point.
enum class PatternKind {
  kDistinct,      // 32 lanes -> 32 banks
  kBankConflict,  // k lanes share each bank, at different words
  kSameAddress,   // every lane on one word
};

struct AddressPattern {
  PatternKind kind = PatternKind::kDistinct;
  int k = 1;  // conflict degree for kBankConflict (2..32); 1 otherwise
};

inline constexpr int kStreamUnroll = 32;    // atomics per unrolled group in the kernel
inline constexpr int kCasSlotsPerGroup = 4; // c is resolved in quarters: cas_quarters / 4

struct StreamConfig {
  int warps_per_sm = 1;       // parallel load n
  int active_lanes = 32;      // e
  int cas_quarters = 0;       // c = cas_quarters / 4 (0..4)
  FaoVariant fao = FaoVariant::kAdd;
  AddressPattern pattern;
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
enum class LatencyOp { kAdd, kCas };

struct LatencyConfig {
  LatencyOp op = LatencyOp::kAdd;
  AddressPattern pattern;
  int active_lanes = 32;
  int chain_length = 4096;  // dependent atomics per warp (rounded up to the unroll)
};

struct LatencyResult {
  std::vector<double> cycles_per_atomic;  // one entry per SM
  long long chain_length = 0;
};

struct DeviceSummary {
  std::string name;
  int ordinal = 0;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  int max_warps_per_sm = 0;
  int max_threads_per_block = 0;
  long long shared_mem_per_sm = 0;
  long long shared_mem_per_block_optin = 0;
  int clock_khz = 0;
  int memory_clock_khz = 0;
  int driver_version = 0;
  int runtime_version = 0;
};

// 13000 -> "13.0" (CUDA driver/runtime API version numbers).
std::string cuda_version_string(int version);
// The NVIDIA kernel module's release ("580.159.04") from /proc; "unknown" when unreadable.
std::string nvidia_driver_release();

// Number of CUDA devices; throws atomq::CudaError when no driver or device is usable.
int device_count();
DeviceSummary describe_device(int ordinal);

class AtomicStreamBench {
 public:
  explicit AtomicStreamBench(int device);
  ~AtomicStreamBench();
  AtomicStreamBench(const AtomicStreamBench&) = delete;
  AtomicStreamBench& operator=(const AtomicStreamBench&) = delete;

  const DeviceSummary& device() const;
  StreamResult run(const StreamConfig& config);
  LatencyResult run_latency(const LatencyConfig& config);
  // SM clock under load, from clock64() against device events over a ~2 ms spin.
  double measure_sm_clock_mhz();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::microbench
