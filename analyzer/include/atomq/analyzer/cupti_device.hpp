// What CUPTI says about one device: its chip name (into atomq::DeviceInfo) and whether
// counters can be read here.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "atomq/common/device_info.hpp"
#include "atomq/common/enum_names.hpp"
#include "atomq/model/kernel_profile.hpp"

namespace atomq::analyzer {

enum class CounterAccess { kReadable, kNoPermission, kUnsupported, kError };
constexpr std::array<EnumName<CounterAccess>, 4> enum_names(CounterAccess) {
  return {{{CounterAccess::kReadable, "yes"},
           {CounterAccess::kNoPermission, "no (permission)"},
           {CounterAccess::kUnsupported, "no (unsupported)"},
           {CounterAccess::kError, "unknown"}}};
}

struct CounterAvailability {
  CounterAccess access = CounterAccess::kError;
  std::string detail;  // the reason when counters are not readable
};

// Needs a driver; creates the primary context of the device. Sets device.chip (left empty
// when CUPTI cannot tell). Never throws for CUPTI failures: they are reported in the result.
CounterAvailability probe_cupti_device(int ordinal, DeviceInfo& device);

// The collector does not know the DRAM's peak bandwidth: sets it, where a profile lacks it, from
// the device attributes of this machine's GPU with the profile's device name (the memory floor
// and the hidden-memory rule need it). Throws CudaError when no driver or device is usable.
void fill_dram_peak(std::vector<model::KernelProfile>& profiles);

}  // namespace atomq::analyzer
