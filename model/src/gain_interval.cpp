// What-if intervals (docs/model.md, "What-if intervals"): every what-if's predicted gain as an
// interval between full overlap (low) and no overlap (high), with the memory floor as a cap.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "atomq/model/analysis.hpp"
#include "atomq/model/metric_names.hpp"
#include "findings.hpp"

namespace atomq::model {

namespace {

struct KernelTime {
  double duration_ns = 0;
  std::optional<double> memory_floor_ns;
  // The rest of the kernel as the load latency floor estimates it (load_latency.hpp).
  std::optional<double> load_floor_ns;
  std::string load_floor_basis;
};

KernelTime kernel_time(const KernelProfile& p, const LoadLatencyFloor& loads) {
  KernelTime t;
  if (loads.evaluated && loads.floor_ns && *loads.floor_ns > 0) {
    t.load_floor_ns = loads.floor_ns;
    t.load_floor_basis = loads.basis;
  }
  const auto duration = p.counter(metric::kDurationNs);
  if (duration && std::isfinite(*duration)) t.duration_ns = *duration;
  if (const detail::RestFloor dram = detail::rest_floor(p); dram.measured) t.memory_floor_ns = dram.ns;
  return t;
}

// Under full overlap the kernel time is max(busy, rest). A unit busy less than the whole time
// means the rest ran the whole time; within the tolerance of U = 1 the rest's share falls to 0
// (then only the memory floor bounds it).
double rest_share_under_full_overlap(double u, double tolerance) {
  if (tolerance <= 0) return u >= 1.0 ? 0.0 : 1.0;
  return std::clamp((1.0 - u) / tolerance, 0.0, 1.0);
}

// `u`: the binding unit's utilization on the busiest SM (or the hottest slice), so u x T is the
// busy time the what-if's saving came from.
// `rest_unbounded`: why the counters do not bound the rest of the kernel below its time (empty:
// they do); then the low end is no gain. A what-if with a least change (least_change_time_ns)
// takes its low end from that change. With the overlap term off (rules' terms_off) the low end is
// that least change alone (no full-overlap bound).
GainInterval overlap_interval(const WhatIf& w, const KernelTime& t, double u, const Rules& rules,
                              const std::string& unit, const std::string& rest_unbounded = {}) {
  const double tolerance = rules.overlap_saturation_tolerance;
  const bool overlap = rules.uses(ModelTerm::kOverlapInterval);
  GainInterval g;
  if (!(t.duration_ns > 0) || !w.predicted_time_ns || !(*w.predicted_time_ns > 0)) return g;
  const double T = t.duration_ns;
  const double no_overlap = *w.predicted_time_ns;
  const double least = std::max(no_overlap, w.least_change_time_ns.value_or(no_overlap));
  const double busy = std::clamp(u, 0.0, 1.0) * T;
  const double busy_after = std::max(0.0, busy - (T - least));
  // Where the atomic counters leave the rest unbounded, the load latency floor bounds it instead;
  // elsewhere it is a floor under the rest as the memory floor is.
  const bool estimated = !rest_unbounded.empty() && t.load_floor_ns;
  const double rest_share = !rest_unbounded.empty() && !estimated ? 1.0 : rest_share_under_full_overlap(u, tolerance);
  const double rest =
      std::min(T, std::max({t.memory_floor_ns.value_or(0.0), t.load_floor_ns.value_or(0.0), rest_share * T}));
  const double full_overlap = overlap ? std::max({least, busy_after, rest}) : least;
  g.evaluated = true;
  g.high = T / no_overlap;
  g.low = T / full_overlap;
  g.time_ns_at_high = no_overlap;
  g.time_ns_at_low = full_overlap;
  g.memory_floor_ns = t.memory_floor_ns;
  g.nonatomic_floor_fraction = overlap ? rest / T : 0.0;
  g.basis = fmt::format(
      "high (no overlap): the {} busy time saved comes off the kernel time; low (full overlap): the "
      "rest of the kernel ran under the {} busy time (U {:.1f}%) and takes {:.0f}% of the kernel time",
      unit, unit, 100.0 * u, 100.0 * rest / T);
  if (!overlap)
    g.basis += "; the full-overlap bound switched off (rules' terms_off)";
  else if (estimated)
    g.basis += "; " + rest_unbounded + ": the rest is taken at its load latency floor, " + t.load_floor_basis;
  else if (!rest_unbounded.empty())
    g.basis += "; " + rest_unbounded + ": low is no gain";
  else if (t.load_floor_ns)
    g.basis += fmt::format("; the rest no shorter than its load latency floor {:.4g} us", *t.load_floor_ns / 1e3);
  if (w.least_change_time_ns)
    g.basis += fmt::format("; low also takes the least change the counters allow ({:.4g} us without overlap)",
                           least / 1e3);
  if (t.memory_floor_ns)
    g.basis += fmt::format("; memory floor {:.4g} us (DRAM bytes at the peak bandwidth)", *t.memory_floor_ns / 1e3);
  return g;
}

// A CAS loop's fix: its what-ifs are the finding's best and worst case; each gets their span,
// the low end no higher than the full-overlap bound (`full_overlap_low`): a loop that ran under
// the rest of the kernel (the warps waiting on memory) shrinks without the kernel doing so.
void cas_retry_intervals(Finding& f, double full_overlap_low) {
  double low = 0, high = 0;
  bool any = false;
  for (const WhatIf& w : f.what_ifs) {
    if (!(w.speedup > 0) || !std::isfinite(w.speedup)) continue;
    low = any ? std::min(low, w.speedup) : w.speedup;
    high = any ? std::max(high, w.speedup) : w.speedup;
    any = true;
  }
  if (!any) return;
  const bool overlap_lower = full_overlap_low < low;
  low = std::min(low, full_overlap_low);
  for (WhatIf& w : f.what_ifs) {
    GainInterval& g = w.interval;
    g.evaluated = true;
    g.low = low;
    g.high = high;
    if (w.predicted_time_ns && w.speedup > 0) {
      const double T = *w.predicted_time_ns * w.speedup;
      g.time_ns_at_low = T / low;
      g.time_ns_at_high = T / high;
    }
    g.basis = "between the CAS loop's worst case (time proportional to instructions) and its best case "
              "(the rest issued at 4 warp instructions per SM-cycle)";
    if (overlap_lower)
      g.basis += "; low is the full-overlap bound instead (the loop ran under the rest of the kernel, which "
                 "stays: the unit's busy time is below the kernel's)";
  }
}

bool is_l2(FindingKind k) {
  return k == FindingKind::kL2HotAddress || k == FindingKind::kL2HotSlice || k == FindingKind::kL2Throughput;
}

}  // namespace

GainInterval shared_unit_interval(const KernelAnalysis& a, const KernelProfile& profile, const WhatIf& w,
                                  const Rules& rules) {
  return overlap_interval(w, kernel_time(profile, a.load_latency), a.utilization.max, rules, "shared atomic unit's");
}

void attach_gain_intervals(KernelAnalysis& a, const KernelProfile& profile, const Rules& rules) {
  const KernelTime t = kernel_time(profile, a.load_latency);
  for (Finding& f : a.findings) {
    if (f.kind == FindingKind::kCasRetry) {
      // The global loop's what-if sets its own ends (cas_combine_what_if.cpp).
      if (std::all_of(f.what_ifs.begin(), f.what_ifs.end(), [](const WhatIf& w) { return w.interval.evaluated; }))
        continue;
      double overlap_low = std::numeric_limits<double>::infinity();
      for (const WhatIf& w : f.what_ifs)
        if (const GainInterval g = overlap_interval(w, t, a.utilization.max, rules, ""); g.evaluated)
          overlap_low = std::min(overlap_low, g.low);
      cas_retry_intervals(f, overlap_low);
      continue;
    }
    const bool l2 = is_l2(f.kind);
    const bool dsmem = f.kind == FindingKind::kDsmemPath;
    const double u = l2 ? a.l2.utilization : dsmem ? std::min(1.0, a.dsmem.utilization) : a.utilization.max;
    const std::string unit = l2 ? "hottest L2 slice's" : dsmem ? "DSMEM path's" : "shared atomic unit's";
    // Requests x S beyond the time by more than the rate tolerance: S overstates these requests.
    // The busy counter at the occupancy cap: the slice is saturated, by how much the counters do
    // not say, so they do not bound the rest of the kernel below the kernel's time either.
    std::string unbounded;
    if (l2 && a.l2.utilization_basis == L2UtilizationBasis::kRequests &&
        a.l2.request_utilization > 1.0 + rules.l2_rate_tolerance)
      unbounded = "the hottest L2 slice's requests x calibrated S exceed the kernel's time (the slice retired "
                  "them faster), so the counters do not show that it bound the kernel";
    else if (l2 && a.l2.utilization_basis == L2UtilizationBasis::kBusyCounter && a.l2.utilization >= 1.0)
      unbounded = "the hottest L2 slice's busy counter is at the occupancy cap: saturated, by how much the "
                  "counters do not say, so they do not bound the rest of the kernel below its time";
    for (WhatIf& w : f.what_ifs)
      if (!w.interval.evaluated)  // a what-if that set its own ends (warp_copies_what_if.cpp) keeps them
        w.interval = overlap_interval(w, t, u, rules, unit, unbounded);
  }
}

}  // namespace atomq::model
