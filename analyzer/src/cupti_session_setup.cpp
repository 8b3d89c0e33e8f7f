#include "cupti_session_setup.hpp"

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <mutex>

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
