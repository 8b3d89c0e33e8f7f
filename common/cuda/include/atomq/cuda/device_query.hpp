// Device queries through the CUDA runtime (which loads the driver only when first called).
#pragma once

#include "atomq/common/device_info.hpp"

namespace atomq {

// Number of CUDA devices; throws atomq::CudaError when no driver or device is usable.
int device_count();
// Everything DeviceInfo holds that the runtime can tell (not the CUPTI chip name, not the
// clock under load).
DeviceInfo describe_device(int ordinal);

}  // namespace atomq
