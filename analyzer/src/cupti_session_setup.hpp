// CUPTI profiler setup shared by the device probe and the profiling session: one process-wide
// initialization (never torn down, so a probe cannot end a running session's profiler), the
// chip name, and the counter-availability image of a context.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace atomq::analyzer {

// Must precede every other profiler-API call, the chip-name query included (libcupti crashes
// otherwise). Throws CudaError on failure; later calls after a success do nothing.
void initialize_profiler_once();
std::string cupti_chip_name(std::size_t device_index);
std::vector<std::uint8_t> counter_availability(CUcontext ctx);

// Subscribes `callback` as atomq (CUPTI allows one subscriber per process) and enables it for
// every kernel-launch driver call; throws naming the profiler that already holds CUPTI.
CUpti_SubscriberHandle subscribe_to_launches(CUpti_CallbackFunc callback, void* user);

}  // namespace atomq::analyzer
