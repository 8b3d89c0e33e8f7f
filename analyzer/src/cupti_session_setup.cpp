#include "cupti_session_setup.hpp"

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <mutex>
#include <stdexcept>

#include "atomq/cuda/check.hpp"

namespace atomq::analyzer {

void initialize_profiler_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    ATOMQ_CUPTI(cuptiProfilerInitialize(&p));
  });
}

std::string cupti_chip_name(std::size_t device_index) {
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = device_index;
  ATOMQ_CUPTI(cuptiDeviceGetChipName(&chip));
  return chip.pChipName ? chip.pChipName : "";
}

CUpti_SubscriberHandle subscribe_to_launches(CUpti_CallbackFunc callback, void* user) {
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  CUpti_SubscriberParams params{CUpti_SubscriberParams_STRUCT_SIZE};
  params.subscriberName = "atomq";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof holder - 1;
  CUpti_SubscriberHandle subscriber = nullptr;
  const CUptiResult rc = cuptiSubscribe_v2(&subscriber, callback, user, &params);
  if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    throw std::runtime_error(std::string("another profiler already holds CUPTI in this process (") +
                             (holder[0] ? holder : "unknown") +
                             "): run atomq without ncu, nsys, compute-sanitizer or a framework profiler");
  ATOMQ_CUPTI(rc);
  for (CUpti_CallbackId id :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz})
    ATOMQ_CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
  return subscriber;
}

std::vector<std::uint8_t> counter_availability(CUcontext ctx) {
  // Two calls: the first asks for the size, the second fills the image.
  CUpti_Profiler_GetCounterAvailability_Params avail{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.ctx = ctx;
  ATOMQ_CUPTI(cuptiProfilerGetCounterAvailability(&avail));
  std::vector<std::uint8_t> image(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = image.data();
  ATOMQ_CUPTI(cuptiProfilerGetCounterAvailability(&avail));
  return image;
}

}  // namespace atomq::analyzer
