// One validation workload: its device buffers, its variants' launches and its CPU reference.
#pragma once

#include <cstddef>
#include <string>

#include "atomq/validation/validation.hpp"

namespace atomq::validation {

class Workload {
 public:
  virtual ~Workload() = default;
  virtual void reset() = 0;  // outputs cleared with memsets (no kernel launch)
  virtual void launch(const std::string& variant) = 0;
  virtual VariantCheck check() = 0;  // compares the outputs of the last run with the reference
  virtual double useful_updates() const = 0;
};

// A persistent grid (resident blocks per SM x SMs) of `threads` threads running `kernel` with
// one argument block.
void launch_persistent(const void* kernel, int threads, std::size_t shared_bytes, void* args);

}  // namespace atomq::validation

#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_buffer.hpp"

namespace atomq::validation {

template <typename T>
T* upload(DeviceBuffer& buffer, const std::vector<T>& host) {
  T* device = buffer.reserve_for<T>(host.size());
  ATOMQ_CUDA(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

template <typename T>
std::vector<T> download(const T* device, std::size_t count) {
  std::vector<T> host(count);
  ATOMQ_CUDA(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Counter by counter; the detail names the first difference.
VariantCheck compare_counts(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& expected);
// Float sums against the CPU's double ones, each within 1e-4 relative (of at least 1): float adds in
// another order round differently where the values are not whole units. `what` names an element.
VariantCheck compare_float_sums(const std::vector<float>& got, const std::vector<double>& expected, const char* what);

// One variant of a workload: its kernel and the dynamic shared memory it takes.
struct KernelChoice {
  const char* variant;
  const void* (*kernel)();
  int threads;
};
const KernelChoice& choose(const KernelChoice* table, std::size_t size, const std::string& variant);

}  // namespace atomq::validation
