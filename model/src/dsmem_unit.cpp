// The DSMEM path's utilization (dsmem_unit.hpp). Two readings, each a floor on the share of the
// busiest SM's cycles its request path was busy: the path's own busy counter over what it reads
// when the calibration's atomics saturate it, and the requests at the calibrated conflict-free
// service time. U is the larger.
#include "atomq/model/dsmem_unit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "atomq/model/metric_names.hpp"

namespace atomq::model {

DsmemUnit evaluate_dsmem_unit(const KernelProfile& p, const calibration::DsmemSection* section, const Rules& rules) {
  DsmemUnit u;
  const double atom = p.counter_or_zero(metric::kDsmemAtomRequests);
  const double redas = p.counter_or_zero(metric::kDsmemRedAsyncRequests);
  u.requests = atom + redas;
  const double busy_cycles = p.counter_or_zero(metric::kDsmemRequestBusyMax);
  // Any traffic on the path (a cluster kernel's flush reads its peers' bins through it too).
  if (!(u.requests > 0) && !(busy_cycles > 0)) return u;
  u.red_async_share = u.requests > 0 ? redas / u.requests : 0.0;
  if (!section || section->empty()) {
    u.not_evaluated_reason = "the table has no DSMEM section (calibrated before the DSMEM sweep): run atomq calibrate";
    return u;
  }
  const double active_max = p.counter_or_zero(metric::kCyclesActiveMax);
  const double active_avg = p.counter_or_zero(metric::kCyclesActiveAvg);
  const int sms = p.device.sm_count;
  if (!p.counter(metric::kDsmemRequestBusyMax) || !(active_max > 0) || !(active_avg > 0) || sms <= 0) {
    u.not_evaluated_reason = "DSMEM path: the profile lacks its busy counter or the SMs' active cycles";
    return u;
  }
  const calibration::DsmemOp op =
      u.red_async_share > 0.5 ? calibration::DsmemOp::kRedAsync : calibration::DsmemOp::kAtomicAdd;
  const calibration::DsmemCell* cell = section->fastest(op);
  // Without atomics (loads, stores) the busy counter is read as it is: the calibration saturates
  // the path with atomics only, and reads it below 100% then.
  u.saturated_busy_fraction = u.requests > 0 ? section->saturated_busy_fraction(op) : 1.0;
  if (!cell || !(u.saturated_busy_fraction > 0)) {
    u.not_evaluated_reason = fmt::format("the table's DSMEM section has no {} cell", enum_name(op));
    return u;
  }
  u.service_cycles = cell->cycles_per_request;
  u.requests_per_sm = u.requests / sms;
  u.request_utilization = u.requests_per_sm * u.service_cycles / active_avg;
  u.busy_fraction = busy_cycles / active_max;
  u.busy_utilization = u.busy_fraction / u.saturated_busy_fraction;
  u.utilization = std::max(u.request_utilization, u.busy_utilization);
  u.utilization_class = classify(u.utilization, rules);
  u.evaluated = true;
  if (const auto duration = p.counter(metric::kDurationNs); duration && *duration > 0)
    u.atomic_bound_time_ns = std::min(1.0, u.utilization) * *duration;
  if (u.requests > 0)
    u.basis = fmt::format(
        "the busiest SM's DSMEM request path active {:.1f}% of its cycles, {:.1f}% when the calibration's {} "
        "saturate it: {:.1f}%; {:.3g} warp requests per SM at the conflict-free S {:.1f} SM cycles: {:.1f}% of the "
        "mean SM's cycles; U is the larger",
        100.0 * u.busy_fraction, 100.0 * u.saturated_busy_fraction, enum_name(op), 100.0 * u.busy_utilization,
        u.requests_per_sm, u.service_cycles, 100.0 * u.request_utilization);
  else
    u.basis = fmt::format("no DSMEM atomics; the busiest SM's DSMEM request path (loads and stores to cluster "
                          "peers) active {:.1f}% of its cycles",
                          100.0 * u.busy_fraction);
  return u;
}

}  // namespace atomq::model
