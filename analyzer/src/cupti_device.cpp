#include "atomq/analyzer/cupti_device.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <spdlog/spdlog.h>

#include <map>
#include <string>
#include <vector>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_query.hpp"
#include "cupti_session_setup.hpp"
#include "driver_api.hpp"

namespace atomq::analyzer {

namespace {

// The current context, through the driver the runtime has just loaded.
CUcontext current_context() {
  const DriverApi& api = DriverApi::get();
  if (api.ctx_get_current == nullptr) throw std::runtime_error("cuCtxGetCurrent not found in libcuda");
  CUcontext ctx = nullptr;
  ATOMQ_CU(api.ctx_get_current(&ctx));
  return ctx;
}

}  // namespace

CounterAvailability probe_cupti_device(int ordinal, DeviceInfo& device) {
  CounterAvailability info;
  try {
    ATOMQ_CUDA(cudaSetDevice(ordinal));
    ATOMQ_CUDA(cudaFree(nullptr));  // creates the primary context
    const CUcontext ctx = current_context();

    spdlog::debug("cupti probe {}: profiler initialize, chip name", ordinal);
    initialize_profiler_once();
    device.chip = cupti_chip_name(static_cast<size_t>(ordinal));

    CUpti_Profiler_DeviceSupported_Params supported{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    supported.cuDevice = ordinal;
    supported.api = CUPTI_PROFILER_RANGE_PROFILING;
    spdlog::debug("cupti probe {}: device supported", ordinal);
    ATOMQ_CUPTI(cuptiProfilerDeviceSupported(&supported));
    if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
      info.access = CounterAccess::kUnsupported;
      info.detail = "CUPTI range profiling is not supported on this device/configuration";
    } else {
      spdlog::debug("cupti probe {}: counter availability", ordinal);
      counter_availability(ctx);  // throws what a session would hit (e.g. no permission)
      info.access = CounterAccess::kReadable;
    }
  } catch (const CudaError& e) {
    if (e.api() == "CUPTI" && e.code() == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
      info.access = CounterAccess::kNoPermission;
      info.detail =
          "run as root / with CAP_SYS_ADMIN, or set NVreg_RestrictProfilingToAdminUsers=0 "
          "(see ERR_NVGPUCTRPERM)";
    } else {
      info.access = CounterAccess::kError;
      info.detail = e.what();
    }
    spdlog::debug("CUPTI probe of device {}: {}", ordinal, e.what());
  } catch (const std::exception& e) {
    info.access = CounterAccess::kError;
    info.detail = e.what();
  }
  return info;
}

void fill_dram_peak(std::vector<model::KernelProfile>& profiles) {
  std::map<std::string, double> peak_by_name;
  for (int i = 0; i < device_count(); ++i) {
    const DeviceInfo d = describe_device(i);
    peak_by_name.emplace(d.name, d.dram_peak_bytes_per_s);
  }
  for (model::KernelProfile& p : profiles)
    if (p.device.dram_peak_bytes_per_s <= 0 && peak_by_name.count(p.device.name))
      p.device.dram_peak_bytes_per_s = peak_by_name[p.device.name];
}

}  // namespace atomq::analyzer
