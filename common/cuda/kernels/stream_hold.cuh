// The stream-hold kernel of HeldStreamTimer (held_stream_timer.hpp).
#pragma once

namespace atomq::cuda_kernels {

// stream_hold(const volatile int* release, unsigned long long timeout_cycles, int* timed_out)
const void* stream_hold_handle();

}  // namespace atomq::cuda_kernels
