#include "atomq/cuda/device_buffer.hpp"

#include <cuda_runtime_api.h>

#include "atomq/cuda/check.hpp"

namespace atomq {

DeviceBuffer::~DeviceBuffer() { cudaFree(ptr_); }

void* DeviceBuffer::reserve(std::size_t bytes) {
  if (bytes <= bytes_ && ptr_ != nullptr) return ptr_;
  cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
  ATOMQ_CUDA(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes));
  bytes_ = bytes;
  return ptr_;
}

}  // namespace atomq
