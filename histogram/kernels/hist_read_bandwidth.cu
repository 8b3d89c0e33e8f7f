// Read-bandwidth probe: every byte read once with 16-byte loads, as the histogram kernels read.
// The XOR of everything is stored only if it equals a run-time sentinel, so the loads stay.
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

__global__ void __launch_bounds__(policy::ReadProbe::kThreads) hist_read_bandwidth_kernel(const uint4* data,
                                                                   unsigned long long vectors,
                                                                   unsigned int sentinel,
                                                                   unsigned int* sink) {
  unsigned int acc = 0u;
  auto fold = [&](unsigned int w) { acc ^= w; };
  for_each_sample(reinterpret_cast<const std::uint32_t*>(data), vectors * 4ull,
                  global_thread_index(), global_thread_count(), fold);
  if (acc == sentinel) sink[blockIdx.x] = acc;  // a run-time value: the compiler cannot drop it
}

const void* hist_read_bandwidth_handle() {
  return handle(&hist_read_bandwidth_kernel);
}

}  // namespace atomq::histogram::kernels
