// Launch logic of the atomic-stream microbenchmark: occupancy control, timing, reduction.
#include "atomq/microbench/atomic_stream.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "atomic_latency_kernels.cuh"
#include "atomic_stream_kernels.cuh"
#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_buffer.hpp"
#include "atomq/cuda/device_query.hpp"

namespace atomq::microbench {

namespace {

constexpr int kWarpSize = 32;
constexpr int kMaxWarpsPerBlock = 32;
constexpr int kStaticSharedBytes = kernels::kSharedWords * 4;
constexpr int kReservedSharedPerBlock = 1024;  // the runtime's per-block reservation (sm_80+)

// Kernel table index of a stream: 0 = POPC.INC, 1 = ADD, 2 = zero-atomic control.
int stream_kernel_index(const StreamConfig& c) {
  if (c.control) return 2;
  return c.op == OpVariant::kPopcInc ? 0 : 1;
}

// The kernels' pattern code: 0 = distinct banks, 1 = bank conflict, 2 = one word.
int pattern_code(const Pattern& p) {
  if (p.same_address()) return 2;
  return p.bank_conflict() ? 1 : 0;
}

}  // namespace

struct AtomicStreamBench::Impl {
  DeviceInfo device;
  int max_blocks;
  DeviceBuffer block_start, block_end, block_smid, sink, verify_sum;
  cudaEvent_t begin{}, end{};

  Impl(const DeviceInfo& d, int blocks)
      : device(d),
        max_blocks(blocks),
        block_start(blocks * sizeof(unsigned long long)),
        block_end(blocks * sizeof(unsigned long long)),
        block_smid(blocks * sizeof(unsigned int)),
        sink(blocks * sizeof(unsigned int)),
        verify_sum(sizeof(unsigned long long)) {
    ATOMQ_CUDA(cudaEventCreate(&begin));
    ATOMQ_CUDA(cudaEventCreate(&end));
  }
  ~Impl() {
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
  }
};

namespace {
DeviceInfo select_device(int ordinal) {
  ATOMQ_CUDA(cudaSetDevice(ordinal));
  return describe_device(ordinal);
}
}  // namespace

AtomicStreamBench::AtomicStreamBench(int ordinal) {
  const DeviceInfo d = select_device(ordinal);
  const int max_blocks_per_sm = (d.max_warps_per_sm + kMaxWarpsPerBlock - 1) / kMaxWarpsPerBlock;
  impl_ = std::make_unique<Impl>(d, d.sm_count * std::max(1, max_blocks_per_sm) * 2);
  const int max_dynamic = static_cast<int>(d.shared_mem_per_block_optin) - kStaticSharedBytes;
  for (int fao = 0; fao <= 2; ++fao) {
    for (int cas = 0; cas <= 4; ++cas) {
      const void* kernel = kernels::atomic_stream_kernel_handle(fao, cas);
      if (kernel == nullptr) continue;
      ATOMQ_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      max_dynamic));
    }
  }
}

AtomicStreamBench::~AtomicStreamBench() = default;

const DeviceInfo& AtomicStreamBench::device() const { return impl_->device; }

namespace {

// Checks shared by the stream and the latency benchmarks.
void check_lanes_and_pattern(int active_lanes, const Pattern& pat) {
  if (active_lanes < 1 || active_lanes > kWarpSize)
    throw std::invalid_argument("active_lanes must be in 1..32");
  if (!valid_pattern(pat))
    throw std::invalid_argument("bank-conflict degree k must be a power of two in 2..32");
}

// The conflict degree a kernel argument carries (1 unless a bank conflict).
int conflict_k(const Pattern& pat) { return pat.bank_conflict() ? pat.conflict_degree : 1; }

// Each SM's span from its first block's start to its last block's end, per instruction; SMs
// that did not get exactly `blocks_per_sm` blocks are counted as skipped.
void cycles_per_sm(const std::vector<unsigned long long>& start,
                   const std::vector<unsigned long long>& stop, const std::vector<unsigned int>& smid,
                   int blocks_per_sm, double insts_per_sm, StreamResult& result) {
  struct SmSpan {
    unsigned long long first = ~0ull, last = 0;
    int blocks = 0;
  };
  std::map<unsigned int, SmSpan> per_sm;
  for (size_t b = 0; b < smid.size(); ++b) {
    SmSpan& s = per_sm[smid[b]];
    s.first = std::min(s.first, start[b]);
    s.last = std::max(s.last, stop[b]);
    ++s.blocks;
  }
  for (const auto& [id, s] : per_sm) {
    if (s.blocks != blocks_per_sm) {
      ++result.sms_skipped;
      continue;
    }
    result.cycles_per_inst.push_back(static_cast<double>(s.last - s.first) / insts_per_sm);
  }
}

}  // namespace

StreamResult AtomicStreamBench::run(const StreamConfig& config) {
  const DeviceInfo& d = impl_->device;
  if (config.warps_per_sm < 1 || config.warps_per_sm > d.max_warps_per_sm)
    throw std::invalid_argument("warps_per_sm must be in 1.." + std::to_string(d.max_warps_per_sm));
  check_lanes_and_pattern(config.active_lanes, config.pattern);
  if (config.cas_quarters < 0 || config.cas_quarters > 4)
    throw std::invalid_argument("cas_quarters must be in 0..4");
  if (config.control && config.cas_quarters != 0)
    throw std::invalid_argument("the control stream has no CAS slots");
  const Pattern& pat = config.pattern;

  // n warps per SM as blocks_per_sm equal blocks; dynamic shared memory makes exactly that
  // many blocks fit on one SM, so the load per SM is what was asked for.
  const int blocks_per_sm = (config.warps_per_sm + kMaxWarpsPerBlock - 1) / kMaxWarpsPerBlock;
  if (config.warps_per_sm % blocks_per_sm != 0)
    throw std::invalid_argument("warps_per_sm " + std::to_string(config.warps_per_sm) +
                                " does not split into equal blocks of <= 32 warps");
  const int warps_per_block = config.warps_per_sm / blocks_per_sm;
  const long long per_block_budget = d.shared_mem_per_sm / blocks_per_sm;
  const long long dynamic_bytes =
      std::min<long long>(d.shared_mem_per_block_optin - kStaticSharedBytes,
                          per_block_budget - kStaticSharedBytes - 2 * kReservedSharedPerBlock);
  const int grid = d.sm_count * blocks_per_sm;
  if (grid > impl_->max_blocks) throw std::logic_error("block buffers too small");

  const int iterations = std::max(1, (config.atomics_per_warp + kStreamUnroll - 1) / kStreamUnroll);
  kernels::StreamArgs args{};
  args.active_lanes = config.active_lanes;
  args.pattern_kind = pattern_code(pat);
  args.conflict_k = conflict_k(pat);
  args.iterations = iterations;
  args.sentinel = 0xFFFFFFFFu;  // far above any accumulated value of a bounded stream
  args.verify = config.verify ? 1 : 0;
  args.block_start = impl_->block_start.as<unsigned long long>();
  args.block_end = impl_->block_end.as<unsigned long long>();
  args.block_smid = impl_->block_smid.as<unsigned int>();
  args.sink = impl_->sink.as<unsigned int>();
  args.verify_sum = impl_->verify_sum.as<unsigned long long>();

  const void* kernel = kernels::atomic_stream_kernel_handle(stream_kernel_index(config), config.cas_quarters);
  if (kernel == nullptr) throw std::invalid_argument("no kernel for this op variant");
  if (config.verify) ATOMQ_CUDA(cudaMemset(impl_->verify_sum.as<unsigned long long>(), 0, sizeof(unsigned long long)));

  void* params[] = {&args};
  ATOMQ_CUDA(cudaEventRecord(impl_->begin));
  ATOMQ_CUDA(cudaLaunchKernel(kernel, dim3(grid), dim3(warps_per_block * kWarpSize), params,
                              static_cast<size_t>(dynamic_bytes), nullptr));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaEventRecord(impl_->end));
  ATOMQ_CUDA(cudaEventSynchronize(impl_->end));

  StreamResult result;
  float ms = 0.f;
  ATOMQ_CUDA(cudaEventElapsedTime(&ms, impl_->begin, impl_->end));
  result.elapsed_ms = ms;
  result.atomics_per_warp = static_cast<long long>(iterations) * kStreamUnroll;

  std::vector<unsigned long long> start(grid), stop(grid);
  std::vector<unsigned int> smid(grid);
  ATOMQ_CUDA(cudaMemcpy(start.data(), impl_->block_start.as<unsigned long long>(), grid * sizeof(start[0]), cudaMemcpyDeviceToHost));
  ATOMQ_CUDA(cudaMemcpy(stop.data(), impl_->block_end.as<unsigned long long>(), grid * sizeof(stop[0]), cudaMemcpyDeviceToHost));
  ATOMQ_CUDA(cudaMemcpy(smid.data(), impl_->block_smid.as<unsigned int>(), grid * sizeof(smid[0]), cudaMemcpyDeviceToHost));
  if (config.verify)
    ATOMQ_CUDA(cudaMemcpy(&result.verify_sum, impl_->verify_sum.as<unsigned long long>(), sizeof(unsigned long long),
                          cudaMemcpyDeviceToHost));

  cycles_per_sm(start, stop, smid, blocks_per_sm,
                static_cast<double>(config.warps_per_sm) * result.atomics_per_warp, result);
  result.sms_measured = static_cast<int>(result.cycles_per_inst.size());
  return result;
}

LatencyResult AtomicStreamBench::run_latency(const LatencyConfig& config) {
  const DeviceInfo& d = impl_->device;
  check_lanes_and_pattern(config.active_lanes, config.pattern);
  const Pattern& pat = config.pattern;
  const int iterations =
      std::max(1, (config.chain_length + kernels::kLatencyUnroll - 1) / kernels::kLatencyUnroll);

  kernels::LatencyArgs args{};
  args.active_lanes = config.active_lanes;
  args.pattern_kind = pattern_code(pat);
  args.conflict_k = conflict_k(pat);
  args.iterations = iterations;
  args.zero = 0u;
  args.block_cycles = impl_->block_start.as<unsigned long long>();
  args.sink = impl_->sink.as<unsigned int>();
  const void* kernel = kernels::atomic_latency_kernel_handle(config.op == LatencyOp::kCas ? 3 : 1);
  void* params[] = {&args};
  // One warp per SM: as many blocks as SMs, each too big in shared memory to share an SM.
  const size_t dynamic_bytes = static_cast<size_t>(d.shared_mem_per_sm / 2 + 1024);
  ATOMQ_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(dynamic_bytes)));
  ATOMQ_CUDA(cudaLaunchKernel(kernel, dim3(d.sm_count), dim3(kWarpSize), params, dynamic_bytes, nullptr));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaDeviceSynchronize());

  std::vector<unsigned long long> cycles(d.sm_count);
  ATOMQ_CUDA(cudaMemcpy(cycles.data(), impl_->block_start.as<unsigned long long>(), cycles.size() * sizeof(cycles[0]),
                        cudaMemcpyDeviceToHost));
  LatencyResult result;
  result.chain_length = static_cast<long long>(iterations) * kernels::kLatencyUnroll;
  for (unsigned long long c : cycles)
    result.cycles_per_atomic.push_back(static_cast<double>(c) / static_cast<double>(result.chain_length));
  return result;
}

double AtomicStreamBench::measure_sm_clock_mhz() {
  const DeviceInfo& d = impl_->device;
  const long long cycles = 4'000'000;  // about 2 ms at 2 GHz
  DeviceBuffer out(d.sm_count * sizeof(unsigned long long));
  const void* kernel = kernels::clock_spin_kernel_handle();
  long long cycles_arg = cycles;
  unsigned long long* out_ptr = out.as<unsigned long long>();
  void* params[] = {&cycles_arg, &out_ptr};
  float ms = 0.f;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass wakes the clocks up
    ATOMQ_CUDA(cudaEventRecord(impl_->begin));
    ATOMQ_CUDA(cudaLaunchKernel(kernel, dim3(d.sm_count), dim3(kWarpSize), params, 0, nullptr));
    ATOMQ_CUDA_LAUNCH();
    ATOMQ_CUDA(cudaEventRecord(impl_->end));
    ATOMQ_CUDA(cudaEventSynchronize(impl_->end));
    ATOMQ_CUDA(cudaEventElapsedTime(&ms, impl_->begin, impl_->end));
  }
  return static_cast<double>(cycles) / (static_cast<double>(ms) * 1e3);
}

}  // namespace atomq::microbench
