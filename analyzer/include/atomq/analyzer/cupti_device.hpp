// What CUPTI says about one device: its chip name and whether counters can be read here.
#pragma once

#include <string>

namespace atomq::analyzer {

enum class CounterAccess { kReadable, kNoPermission, kUnsupported, kError };
std::string to_string(CounterAccess a);

struct CuptiDeviceInfo {
  std::string chip;            // e.g. "GH100"; empty when CUPTI could not tell
  CounterAccess counters = CounterAccess::kError;
  std::string detail;          // the reason when counters are not readable
};

// Needs a driver; creates the primary context of the device. Never throws for CUPTI
// failures: they are reported in the result.
CuptiDeviceInfo probe_cupti_device(int ordinal);

}  // namespace atomq::analyzer
