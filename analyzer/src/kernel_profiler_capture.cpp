// The program's own capture range: cuProfilerStart / cuProfilerStop (and cudaProfilerStart /
// cudaProfilerStop, seen in the runtime's domain too, in case a runtime does not go through the
// driver's entry points). With ProfilerOptions::profile_from_start false, only launches while
// the range is open are profiled, as with ncu's --profile-from-start off.
#include <cupti.h>

#include <atomic>

#include "atomq/cuda/check.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer::detail {

namespace {

// Process-wide, as the CUDA calls are: a start on one thread opens the range for all.
std::atomic<bool> g_capture_open{false};

}  // namespace

bool capture_range_open() { return g_capture_open.load(std::memory_order_relaxed); }

bool on_capture_call(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
  const bool start = (domain == CUPTI_CB_DOMAIN_DRIVER_API && id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart) ||
                     (domain == CUPTI_CB_DOMAIN_RUNTIME_API && id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
  const bool stop = (domain == CUPTI_CB_DOMAIN_DRIVER_API && id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop) ||
                    (domain == CUPTI_CB_DOMAIN_RUNTIME_API && id == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  if (start || stop) g_capture_open.store(start, std::memory_order_relaxed);
  return start || stop;
}

void enable_capture_callbacks(CUpti_SubscriberHandle subscriber) {
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop})
    ATOMQ_CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
  for (CUpti_CallbackId id :
       {CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000})
    ATOMQ_CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id));
}

}  // namespace atomq::analyzer::detail
