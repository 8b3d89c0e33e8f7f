// Holds a stream until the host releases it, so that a timed sequence (start event, launches,
// stop event) is queued on the device before any of it runs: the events then measure the
// device's work, not the host's launch calls between them. Gives up after `timeout_cycles`
// (and says so through *timed_out) so a lost release cannot hang the program.
#include "stream_hold.cuh"

namespace atomq::cuda_kernels {

__global__ void stream_hold_kernel(const volatile int* release, unsigned long long timeout_cycles, int* timed_out) {
  const long long start = clock64();
  while (*release == 0) {
    if (static_cast<unsigned long long>(clock64() - start) > timeout_cycles) {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

const void* stream_hold_handle() { return reinterpret_cast<const void*>(&stream_hold_kernel); }

}  // namespace atomq::cuda_kernels
