// The DSMEM path as a queue (docs/model.md, "The DSMEM path"): atomics on a cluster peer's
// shared memory leave the issuing SM through its request path to the SM-to-SM network. Its
// utilization is what the path's busy counter and its requests x the calibrated S say.
// Plain C++, a pure function of (profile, table section).
#pragma once

#include <optional>
#include <string>

#include "atomq/calibration/dsmem_section.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/rules.hpp"
#include "atomq/model/utilization_class.hpp"

namespace atomq::model {

struct DsmemUnit {
  bool evaluated = false;
  std::string not_evaluated_reason;  // empty when the kernel has no DSMEM atomics
  double requests = 0;               // warp requests: ATOM/RED on the cluster window + red.async
  double red_async_share = 0;        // of those, red.async
  double requests_per_sm = 0;        // requests / SMs
  double service_cycles = 0;         // S: the table's cheapest saturated cell of the kernel's op
  double busy_fraction = 0;          // the busiest SM's request path active / its active cycles
  double saturated_busy_fraction = 0;  // what the table's saturated cells read on that counter
  double request_utilization = 0;    // requests per SM x S / the mean SM's active cycles
  double busy_utilization = 0;       // busy_fraction / saturated_busy_fraction
  double utilization = 0;            // the larger: each is a floor on the path's busy share
  UtilizationClass utilization_class = UtilizationClass::kNotAtomicBound;
  std::optional<double> atomic_bound_time_ns;  // U x the kernel's time
  std::string basis;
};

DsmemUnit evaluate_dsmem_unit(const KernelProfile& profile, const calibration::DsmemSection* section,
                              const Rules& rules);

}  // namespace atomq::model
