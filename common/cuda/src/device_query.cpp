#include "atomq/cuda/device_query.hpp"

#include <cuda_runtime_api.h>

#include "atomq/cuda/check.hpp"

namespace atomq {

int device_count() {
  int count = 0;
  ATOMQ_CUDA(cudaGetDeviceCount(&count));
  return count;
}

DeviceInfo describe_device(int ordinal) {
  constexpr int kWarpSize = 32;
  DeviceInfo d;
  cudaDeviceProp prop{};
  ATOMQ_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  d.name = prop.name;
  d.ordinal = ordinal;
  unsigned char uuid[16];
  static_assert(sizeof prop.uuid.bytes == sizeof uuid);
  for (int i = 0; i < 16; ++i) uuid[i] = static_cast<unsigned char>(prop.uuid.bytes[i]);
  d.uuid = device_uuid_text(uuid);
  d.sm_count = prop.multiProcessorCount;
  d.compute_capability_major = prop.major;
  d.compute_capability_minor = prop.minor;
  d.max_warps_per_sm = prop.maxThreadsPerMultiProcessor / kWarpSize;
  d.max_threads_per_block = prop.maxThreadsPerBlock;
  d.shared_mem_per_sm = static_cast<long long>(prop.sharedMemPerMultiprocessor);
  d.shared_mem_per_block_optin = static_cast<long long>(prop.sharedMemPerBlockOptin);
  ATOMQ_CUDA(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, ordinal));
  ATOMQ_CUDA(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  int bus_width_bits = 0;
  ATOMQ_CUDA(cudaDeviceGetAttribute(&bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal));
  d.dram_peak_bytes_per_s = dram_peak_bytes_per_s(d.memory_clock_khz, bus_width_bits);
  ATOMQ_CUDA(cudaDriverGetVersion(&d.driver_version));
  ATOMQ_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  return d;
}

}  // namespace atomq
