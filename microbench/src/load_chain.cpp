// Launch logic of the dependent-load microbenchmark: the zeroed buffer, the grid, the timing.
#include "atomq/microbench/load_chain.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_buffer.hpp"
#include "atomq/cuda/device_query.hpp"
#include "load_chain_kernels.cuh"

namespace atomq::microbench {

namespace {

constexpr unsigned long long kDramFootprintWords = 1ull << 28;  // 1 GiB: many times any L2
constexpr unsigned long long kL2FootprintWords = 1ull << 21;    // 8 MiB: well inside a 50 MB L2

void validate(const LoadChainConfig& c) {
  const int s = c.sectors_per_request;
  if (c.warps_per_sm < 1 || c.warps_per_sm > 64 || (c.warps_per_sm > 32 && c.warps_per_sm % 2 != 0) || c.steps < 1 || !(s == 4 || s == 8 || s == 16 || s == 32))
    throw std::invalid_argument("load chain: warps_per_sm in 1..32 or even up to 64, steps >= 1, sectors_per_request 4, 8, 16 or 32");
}

}  // namespace

struct LoadChainBench::Impl {
  DeviceInfo device;
  DeviceBuffer words;
  DeviceBuffer sink;
  cudaEvent_t begin{}, end{};
  explicit Impl(const DeviceInfo& d) : device(d) {
    ATOMQ_CUDA(cudaEventCreate(&begin));
    ATOMQ_CUDA(cudaEventCreate(&end));
  }
  ~Impl() {
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
  }
  double launch(const LoadChainConfig& c);
};

LoadChainBench::LoadChainBench(int ordinal) {
  ATOMQ_CUDA(cudaSetDevice(ordinal));
  impl_ = std::make_unique<Impl>(describe_device(ordinal));
  impl_->words.reserve(kDramFootprintWords * sizeof(unsigned int));
  ATOMQ_CUDA(cudaMemset(impl_->words.as<void>(), 0, kDramFootprintWords * sizeof(unsigned int)));
  impl_->sink.reserve(static_cast<size_t>(impl_->device.sm_count) * 64 * sizeof(unsigned int));
}

LoadChainBench::~LoadChainBench() = default;

const DeviceInfo& LoadChainBench::device() const { return impl_->device; }

double LoadChainBench::Impl::launch(const LoadChainConfig& c) {
  kernels::LoadChainArgs args{};
  args.words = words.as<unsigned int>();
  args.footprint_words = c.residency == LoadResidency::kDram ? kDramFootprintWords : kL2FootprintWords;
  args.steps = c.steps;
  args.scattered = c.sectors_per_request == 32 ? 1 : 0;
  args.lane_words = args.scattered ? 1 : c.sectors_per_request / 4;
  args.sink = sink.as<unsigned int>();
  // Blocks of up to 32 warps, all resident at once: warps_per_sm warps on every SM.
  const int warps_per_block = c.warps_per_sm <= 32 ? c.warps_per_sm : c.warps_per_sm / 2;
  const int blocks_per_sm = c.warps_per_sm / warps_per_block;
  ATOMQ_CUDA(cudaEventRecord(begin));
  void* params[] = {&args};
  ATOMQ_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(&kernels::load_chain_kernel),
                              dim3(device.sm_count * blocks_per_sm), dim3(warps_per_block * 32), params, 0, nullptr));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaEventRecord(end));
  ATOMQ_CUDA(cudaEventSynchronize(end));
  float ms = 0.f;
  ATOMQ_CUDA(cudaEventElapsedTime(&ms, begin, end));
  return ms;
}

std::vector<double> LoadChainBench::time_ms(const LoadChainConfig& config, int repeats) {
  validate(config);
  LoadChainConfig warm = config;
  warm.steps = std::max(config.steps, 64);
  impl_->launch(warm);  // the L2 footprint's lines in L2; clocks up
  std::vector<double> out;
  for (int r = 0; r < repeats; ++r) out.push_back(impl_->launch(config));
  return out;
}

}  // namespace atomq::microbench
