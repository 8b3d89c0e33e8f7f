// Launch logic of the launch-floor microbenchmark.
#include "atomq/microbench/launch_floor.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_query.hpp"
#include "launch_floor_kernels.cuh"

namespace atomq::microbench {

struct LaunchFloorBench::Impl {
  DeviceInfo device;
};

LaunchFloorBench::LaunchFloorBench(int ordinal) : impl_(std::make_unique<Impl>()) {
  ATOMQ_CUDA(cudaSetDevice(ordinal));
  impl_->device = describe_device(ordinal);
}

LaunchFloorBench::~LaunchFloorBench() = default;

const DeviceInfo& LaunchFloorBench::device() const { return impl_->device; }

std::function<void()> LaunchFloorBench::launcher(long long blocks, int threads_per_block) const {
  if (blocks < 1 || blocks > 0x7fffffffLL || threads_per_block < 1 || threads_per_block > 1024)
    throw std::invalid_argument("launch floor: blocks from 1 to 2^31 - 1, threads per block from 1 to 1024");
  return [blocks, threads_per_block] {
    ATOMQ_CUDA(cudaLaunchKernel(kernels::empty_kernel_handle(), dim3(static_cast<unsigned>(blocks)),
                                dim3(static_cast<unsigned>(threads_per_block)), nullptr, 0, nullptr));
    ATOMQ_CUDA_LAUNCH();
  };
}

}  // namespace atomq::microbench
