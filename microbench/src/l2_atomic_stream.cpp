// Launch logic of the L2 atomic-stream microbenchmark: grid shape, timing, work sizing.
#include "atomq/microbench/l2_atomic_stream.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_buffer.hpp"
#include "atomq/cuda/device_query.hpp"
#include "l2_atomic_kernels.cuh"

namespace atomq::microbench {

static_assert(kL2AtomicUnroll == kernels::kL2Unroll, "the header's unroll is the kernels' one");

namespace {

constexpr int kWarpSize = 32;
constexpr int kMaxWarpsPerBlock = 32;
constexpr int kReservedSharedPerBlock = 1024;  // the runtime's per-block reservation (sm_80+)
constexpr int kMaxAtomicsPerThread = 1 << 20;

// Blocks of at most 32 warps; `blocks_per_sm` of them per SM.
struct GridShape {
  int blocks_per_sm = 1;
  int warps_per_block = 1;
  int grid = 1;
  long long dynamic_shared_bytes = 0;
};

// Dynamic shared memory sized so that exactly blocks_per_sm blocks fit on one SM, so every SM
// carries warps_per_sm warps (as the shared-atomic stream does, atomic_stream.cpp).
GridShape grid_shape(const DeviceInfo& d, int warps_per_sm) {
  if (warps_per_sm < 1 || warps_per_sm > d.max_warps_per_sm)
    throw std::invalid_argument("warps_per_sm must be in 1.." + std::to_string(d.max_warps_per_sm));
  GridShape s;
  s.blocks_per_sm = (warps_per_sm + kMaxWarpsPerBlock - 1) / kMaxWarpsPerBlock;
  if (warps_per_sm % s.blocks_per_sm != 0)
    throw std::invalid_argument("warps_per_sm " + std::to_string(warps_per_sm) +
                                " does not split into equal blocks of <= 32 warps");
  s.warps_per_block = warps_per_sm / s.blocks_per_sm;
  s.grid = d.sm_count * s.blocks_per_sm;
  s.dynamic_shared_bytes =
      std::min<long long>(d.shared_mem_per_block_optin,
                          d.shared_mem_per_sm / s.blocks_per_sm - 2 * kReservedSharedPerBlock);
  return s;
}

long long addresses_of(AddressSpread spread, int word_bytes, long long threads) {
  switch (spread) {
    case AddressSpread::kOneAddress: return 1;
    case AddressSpread::kOneLine: return std::min(kWarpSize, kernels::kL2LineBytes / word_bytes);
    case AddressSpread::kManyLines: return kernels::kL2ManyLines;
    case AddressSpread::kDistinct: return threads;
  }
  return 0;
}

}  // namespace

struct L2AtomicStreamBench::Impl {
  DeviceInfo device;
  DeviceBuffer words, sink;
  cudaEvent_t begin{}, end{};

  explicit Impl(const DeviceInfo& d) : device(d) {
    ATOMQ_CUDA(cudaEventCreate(&begin));
    ATOMQ_CUDA(cudaEventCreate(&end));
  }
  ~Impl() {
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
  }
};

L2AtomicStreamBench::L2AtomicStreamBench(int ordinal) {
  ATOMQ_CUDA(cudaSetDevice(ordinal));
  impl_ = std::make_unique<Impl>(describe_device(ordinal));
  const DeviceInfo& d = impl_->device;
  // The highest index any spread reaches: distinct at the most warps per SM, or many_lines.
  const long long max_threads = static_cast<long long>(d.sm_count) * d.max_warps_per_sm * kWarpSize;
  int widest = 0;
  for (const GlobalAtomicOpTraits& t : kGlobalAtomicOpTraits) widest = std::max(widest, t.word_bytes);
  const long long bytes = std::max({max_threads * widest, static_cast<long long>(kernels::kL2ManyLines) * kernels::kL2LineBytes,
                                    static_cast<long long>(kL2MaxHotAddresses) * kernels::kL2LineBytes});
  ATOMQ_CUDA(cudaMemset(impl_->words.reserve(static_cast<size_t>(bytes)), 0, static_cast<size_t>(bytes)));
  impl_->sink.reserve(static_cast<size_t>(d.sm_count) * 2 * sizeof(unsigned int));
  for (GlobalAtomicOp op : enum_values<GlobalAtomicOp>())
    ATOMQ_CUDA(cudaFuncSetAttribute(kernels::l2_atomic_kernel_handle(op),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(d.shared_mem_per_block_optin)));
}

L2AtomicStreamBench::~L2AtomicStreamBench() = default;

const DeviceInfo& L2AtomicStreamBench::device() const { return impl_->device; }

L2AtomicLaunch L2AtomicStreamBench::run(const L2AtomicConfig& config) {
  const GridShape shape = grid_shape(impl_->device, config.warps_per_sm);
  if (config.atomics_per_thread < 1 || config.atomics_per_thread > kMaxAtomicsPerThread)
    throw std::invalid_argument("atomics_per_thread must be in 1.." + std::to_string(kMaxAtomicsPerThread));
  kernels::L2AtomicArgs args{};
  args.words = impl_->words.as<void>();
  args.spread = static_cast<int>(config.spread);
  if (config.active_lanes < 1 || config.active_lanes > kWarpSize)
    throw std::invalid_argument("active_lanes must be in 1..32");
  if (config.hot_addresses < 0 || config.hot_addresses > kL2MaxHotAddresses)
    throw std::invalid_argument("hot_addresses must be in 0.." + std::to_string(kL2MaxHotAddresses));
  const int word_bytes = kernels::l2_word_bytes(config.op);
  args.hot_addresses = config.hot_addresses;
  args.stride_words = config.packed ? 1 : kernels::kL2LineBytes / word_bytes;
  args.active_lanes = config.active_lanes;
  if (config.lanes_per_word < 1 || config.active_lanes % config.lanes_per_word != 0)
    throw std::invalid_argument("lanes_per_word must divide active_lanes");
  args.lanes_per_word = config.lanes_per_word;
  args.dependent = config.dependent ? 1 : 0;
  args.iterations = (config.atomics_per_thread + kL2AtomicUnroll - 1) / kL2AtomicUnroll;
  args.sentinel = 0xFFFFFFFFu;
  args.sink = impl_->sink.as<unsigned int>();
  void* params[] = {&args};
  ATOMQ_CUDA(cudaEventRecord(impl_->begin));
  ATOMQ_CUDA(cudaLaunchKernel(kernels::l2_atomic_kernel_handle(config.op), dim3(shape.grid),
                              dim3(shape.warps_per_block * kWarpSize), params,
                              static_cast<size_t>(shape.dynamic_shared_bytes), nullptr));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaEventRecord(impl_->end));
  ATOMQ_CUDA(cudaEventSynchronize(impl_->end));
  float ms = 0.f;
  ATOMQ_CUDA(cudaEventElapsedTime(&ms, impl_->begin, impl_->end));

  L2AtomicLaunch launch;
  launch.elapsed_ms = ms;
  launch.threads = static_cast<long long>(shape.grid) * shape.warps_per_block * kWarpSize;
  launch.atomics_per_thread = static_cast<long long>(args.iterations) * kL2AtomicUnroll;
  launch.warp_instructions = launch.threads / kWarpSize * launch.atomics_per_thread;
  launch.addresses = config.hot_addresses > 0
                         ? config.hot_addresses
                         : addresses_of(config.spread, word_bytes, launch.threads);
  return launch;
}

std::vector<double> L2AtomicStreamBench::time_ms(const L2AtomicConfig& config, int repeats) {
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) times.push_back(run(config).elapsed_ms);
  return times;
}

int L2AtomicStreamBench::atomics_per_thread_for(L2AtomicConfig config, double target_ms) {
  config.atomics_per_thread = kL2AtomicUnroll;
  for (int trial = 0; trial < 4; ++trial) {
    const double ms = run(config).elapsed_ms;
    // Within a factor 1.5 of the target: the time is long enough to scale from; done.
    if (ms > target_ms / 1.5 && ms < target_ms * 1.5) break;
    const double scaled = config.atomics_per_thread * target_ms / std::max(ms, 1e-3);
    const long long rounded = (static_cast<long long>(std::ceil(scaled)) + kL2AtomicUnroll - 1) /
                              kL2AtomicUnroll * kL2AtomicUnroll;
    const int next = static_cast<int>(std::clamp<long long>(rounded, kL2AtomicUnroll, kMaxAtomicsPerThread));
    if (next == config.atomics_per_thread) break;
    config.atomics_per_thread = next;
  }
  return config.atomics_per_thread;
}

}  // namespace atomq::microbench
