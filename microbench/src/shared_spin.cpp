// Launch logic of the shared CAS-spin microbenchmark: the grid, the clocks, the exactness check.
#include "atomq/microbench/shared_spin.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <stdexcept>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_buffer.hpp"
#include "atomq/cuda/device_query.hpp"
#include "shared_spin_kernels.cuh"

namespace atomq::microbench {

namespace {

constexpr int kMaxWarpsPerBlock = 16;  // 512 threads, as a privatizing histogram's blocks often are

bool power_of_two_up_to_32(int v) { return v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32; }

void validate(const SharedSpinConfig& c, int max_warps_per_sm) {
  const int per_block = std::min(c.warps_per_sm, kMaxWarpsPerBlock);
  if (!power_of_two_up_to_32(c.lanes_per_word) || c.iterations < 1 || c.warps_per_sm < 1 ||
      c.warps_per_sm > max_warps_per_sm || c.warps_per_sm % per_block != 0 || c.warps_per_word < 1 ||
      per_block % c.warps_per_word != 0)
    throw std::invalid_argument("shared spin: lanes_per_word a power of two up to 32, iterations >= 1, warps_per_sm "
                                "up to the SM's and a multiple of the block's warps (at most 16), warps_per_word a "
                                "divisor of the block's warps");
}

}  // namespace

struct SharedSpinBench::Impl {
  DeviceInfo device;
  DeviceBuffer cycles, total;
  explicit Impl(const DeviceInfo& d) : device(d) {}
  SharedSpinSample launch(const SharedSpinConfig& c);
};

SharedSpinBench::SharedSpinBench(int ordinal) {
  ATOMQ_CUDA(cudaSetDevice(ordinal));
  impl_ = std::make_unique<Impl>(describe_device(ordinal));
  impl_->total.reserve(sizeof(double));
}

SharedSpinBench::~SharedSpinBench() = default;

const DeviceInfo& SharedSpinBench::device() const { return impl_->device; }

SharedSpinSample SharedSpinBench::Impl::launch(const SharedSpinConfig& c) {
  const int warps_per_block = std::min(c.warps_per_sm, kMaxWarpsPerBlock);
  const int blocks = device.sm_count * (c.warps_per_sm / warps_per_block);
  kernels::SharedSpinArgs args{};
  args.lanes_per_word = c.lanes_per_word;
  args.warps_per_word = c.warps_per_word;
  args.iterations = c.iterations;
  args.block_cycles = cycles.reserve_for<unsigned long long>(blocks);
  args.total = total.as<double>();
  ATOMQ_CUDA(cudaMemset(args.total, 0, sizeof(double)));
  const size_t words = static_cast<size_t>(warps_per_block / c.warps_per_word) * (32 / c.lanes_per_word);
  const size_t shared = words * (c.wide ? 8 : 4);
  void* params[] = {&args};
  ATOMQ_CUDA(cudaLaunchKernel(kernels::shared_spin_kernel_handle(c.wide), dim3(blocks), dim3(warps_per_block * 32),
                              params, shared, nullptr));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaDeviceSynchronize());
  std::vector<unsigned long long> block_cycles(blocks);
  ATOMQ_CUDA(cudaMemcpy(block_cycles.data(), args.block_cycles, blocks * sizeof(unsigned long long),
                        cudaMemcpyDeviceToHost));
  double sum = 0;
  ATOMQ_CUDA(cudaMemcpy(&sum, args.total, sizeof(double), cudaMemcpyDeviceToHost));
  std::nth_element(block_cycles.begin(), block_cycles.begin() + blocks / 2, block_cycles.end());
  SharedSpinSample s;
  s.cycles_per_entry = static_cast<double>(block_cycles[blocks / 2]) / (static_cast<double>(c.iterations) * c.warps_per_sm);
  s.sum = sum;
  s.expected = static_cast<double>(blocks) * warps_per_block * 32 * c.iterations;
  s.exact = sum == s.expected;
  return s;
}

std::vector<SharedSpinSample> SharedSpinBench::run(const SharedSpinConfig& config, int repeats) {
  validate(config, impl_->device.max_warps_per_sm);
  impl_->launch(config);  // clocks up, code loaded
  std::vector<SharedSpinSample> out;
  for (int r = 0; r < repeats; ++r) out.push_back(impl_->launch(config));
  return out;
}

}  // namespace atomq::microbench
