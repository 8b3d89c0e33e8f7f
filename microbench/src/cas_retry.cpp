// Launch logic of the global CAS retry microbenchmark: buffers, timing, the attempt count.
#include "atomq/microbench/cas_retry.hpp"

#include <cuda_runtime_api.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_buffer.hpp"
#include "atomq/cuda/device_query.hpp"
#include "cas_retry_kernels.cuh"

namespace atomq::microbench {

namespace {
constexpr int kWarpSize = 32;
constexpr int kWordStride = 32;      // one word per 128-byte line: each word its own slice line
constexpr int kMaxAddresses = 4096;
constexpr int kMaxBlocksPerSm = 32;  // sm_90's resident-block limit
}  // namespace

struct CasRetryBench::Impl {
  DeviceInfo device;
  DeviceBuffer words, attempts;
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

CasRetryBench::CasRetryBench(int ordinal) {
  ATOMQ_CUDA(cudaSetDevice(ordinal));
  impl_ = std::make_unique<Impl>(describe_device(ordinal));
  impl_->words.reserve(static_cast<size_t>(kMaxAddresses) * kWordStride * sizeof(unsigned int));
  impl_->attempts.reserve(static_cast<size_t>(max_resident_warps()) * kWarpSize * sizeof(unsigned int));
  run(CasRetryConfig{});  // the first launch loads the module: keep it out of any sizing trial
}

CasRetryBench::~CasRetryBench() = default;

const DeviceInfo& CasRetryBench::device() const { return impl_->device; }

int CasRetryBench::max_resident_warps() const {
  return impl_->device.sm_count * std::min(kMaxBlocksPerSm, impl_->device.max_warps_per_sm);
}

CasRetryLaunch CasRetryBench::run(const CasRetryConfig& c) {
  if (c.warps < 1 || c.warps > max_resident_warps())
    throw std::invalid_argument("warps must be in 1.." + std::to_string(max_resident_warps()));
  if (c.active_lanes < 1 || c.active_lanes > kWarpSize) throw std::invalid_argument("active_lanes must be in 1..32");
  if (c.addresses < 1 || c.addresses > kMaxAddresses)
    throw std::invalid_argument("addresses must be in 1.." + std::to_string(kMaxAddresses));
  if (c.updates < 1) throw std::invalid_argument("updates must be positive");
  const size_t word_bytes = static_cast<size_t>(kMaxAddresses) * kWordStride * sizeof(unsigned int);
  ATOMQ_CUDA(cudaMemset(impl_->words.as<unsigned int>(), 0, word_bytes));
  kernels::CasRetryArgs args{impl_->words.as<unsigned int>(), c.addresses, kWordStride, c.active_lanes, c.updates,
                             impl_->attempts.as<unsigned int>()};
  void* params[] = {&args};
  ATOMQ_CUDA(cudaEventRecord(impl_->begin));
  ATOMQ_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(&kernels::cas_retry_kernel), dim3(c.warps),
                              dim3(kWarpSize), params, 0, nullptr));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaEventRecord(impl_->end));
  ATOMQ_CUDA(cudaEventSynchronize(impl_->end));
  float ms = 0.f;
  ATOMQ_CUDA(cudaEventElapsedTime(&ms, impl_->begin, impl_->end));

  std::vector<unsigned int> tries(static_cast<size_t>(c.warps) * kWarpSize);
  ATOMQ_CUDA(cudaMemcpy(tries.data(), impl_->attempts.as<unsigned int>(), tries.size() * sizeof(unsigned int),
                        cudaMemcpyDeviceToHost));
  std::vector<unsigned int> words(static_cast<size_t>(c.addresses) * kWordStride);
  ATOMQ_CUDA(cudaMemcpy(words.data(), impl_->words.as<unsigned int>(), words.size() * sizeof(unsigned int),
                        cudaMemcpyDeviceToHost));
  double sum = 0;
  for (int a = 0; a < c.addresses; ++a) sum += words[static_cast<size_t>(a) * kWordStride];
  CasRetryLaunch r;
  r.elapsed_ms = ms;
  r.attempts = std::accumulate(tries.begin(), tries.end(), 0.0);
  r.updates = static_cast<double>(c.warps) * c.active_lanes * c.updates;
  r.exact = sum == r.updates;
  return r;
}

}  // namespace atomq::microbench
