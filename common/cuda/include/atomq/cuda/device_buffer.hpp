// The one owner of device memory in atomq: a grow-only allocation, so timed runs after the
// first allocate nothing. Not copyable; freed on destruction.
#pragma once

#include <cstddef>

namespace atomq {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { reserve(bytes); }
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // At least `bytes` (a larger earlier allocation is kept; contents are not preserved when it
  // grows). Throws atomq::CudaError when the allocation fails.
  void* reserve(std::size_t bytes);
  // Room for `count` values of T.
  template <typename T>
  T* reserve_for(std::size_t count) {
    return static_cast<T*>(reserve(count * sizeof(T)));
  }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace atomq
