// The L2 what-ifs' time split (docs/model.md, "The L2 queue"): the kernel's time as the
// non-atomic work, which stays (duration minus the hottest slice's busy time, floored by reading
// DRAM at the reachable bandwidth), and the L2 time at the hottest slice, which a change scales:
//   T' = max(non-atomic work, shared-unit time of updates moved to shared memory) + L2 time'.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "findings.hpp"
#include "l2_what_if.hpp"

namespace atomq::model::detail {

std::optional<TimeSplit> time_split(const KernelAnalysis& a, const KernelProfile& p, const Rules& r) {
  const L2Inputs& in = a.l2.inputs;
  if (!in.duration_ns || in.elapsed_cycles <= 0) return std::nullopt;
  TimeSplit t;
  t.time_ns = *in.duration_ns;
  t.ns_per_l2_cycle = t.time_ns / in.elapsed_cycles;
  // The L2-bound share of the time: U, or the busy counter over what the saturated cell read
  // when that says more (it under-reads, so it never overstates a saturated slice).
  double l2_share = a.l2.utilization;
  std::string share_source = "U";
  if (in.busy_fraction && a.l2.calibrated_busy_fraction > 0 &&
      *in.busy_fraction / a.l2.calibrated_busy_fraction > l2_share) {
    l2_share = *in.busy_fraction / a.l2.calibrated_busy_fraction;
    share_source = "busy counter / calibrated busy share";
  }
  // Within the saturation tolerance of 1 the slice ran the whole time (as the intervals take it,
  // gain_interval.cpp): the rest is no larger than the floors below say, not the share's residue.
  if (l2_share >= 1.0 - r.overlap_saturation_tolerance) l2_share = 1.0;
  const double l2_busy_ns = std::min(1.0, l2_share) * t.time_ns;
  t.l2_busy_ns = l2_busy_ns;
  t.other_ns = std::max(0.0, t.time_ns - l2_busy_ns);
  t.other_basis = fmt::format("non-atomic work {:.1f} us (duration {:.1f} us - hottest slice busy "
                              "{:.1f} us, from {})", t.other_ns / 1e3, t.time_ns / 1e3,
                              l2_busy_ns / 1e3, share_source);
  const RestFloor floor = rest_floor(p);
  if (floor.ns > t.other_ns) {
    t.other_ns = floor.ns;
    t.other_basis = floor.basis;
  }
  return t;
}

WhatIf predicted(const TimeSplit& t, WhatIfId id, std::string change, double requests, double hottest,
                 double service_cycles, double shared_ns, const std::string& basis) {
  WhatIf w;
  w.id = id;
  w.change = std::move(change);
  w.instructions = requests;
  w.service_cycles = service_cycles;
  const double l2_ns = hottest * service_cycles * t.ns_per_l2_cycle;
  const double time_ns = std::max(t.other_ns, shared_ns) + l2_ns;
  w.predicted_time_ns = time_ns;
  w.predicted_cycles = t.ns_per_l2_cycle > 0 ? time_ns / t.ns_per_l2_cycle : 0.0;
  w.speedup = time_ns > 0 ? t.time_ns / time_ns : 1.0;
  w.predicted_utilization = time_ns > 0 ? l2_ns / time_ns : 0.0;
  w.basis = fmt::format("{}; {}; {}hottest slice {:.1f} us: predicted {:.1f} us", basis,
                        t.other_basis,
                        shared_ns > 0 ? fmt::format("shared unit {:.1f} us; ", shared_ns / 1e3) : "",
                        l2_ns / 1e3, time_ns / 1e3);
  return w;
}

}  // namespace atomq::model::detail
