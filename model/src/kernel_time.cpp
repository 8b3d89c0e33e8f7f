// Predicted kernel time (docs/model.md, "Predicted kernel time"): the largest floor the counters
// give. Each floor is a time the kernel cannot beat: an atomic unit busy that long, the busiest
// SM issuing its warp instructions at 4 per cycle, the DRAM bytes read at the peak bandwidth.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "atomq/model/metric_names.hpp"
#include "findings.hpp"

namespace atomq::model::detail {

namespace {

constexpr double kFloorExplainsShare = 0.7;  // a floor this close to the time binds it (the potential mark)
constexpr double kFewSmsBalance = 0.25;      // the mean SM active under a quarter of the busiest's cycles

std::optional<double> finite_positive(const std::optional<double>& v) {
  return v && std::isfinite(*v) && *v > 0 ? v : std::nullopt;
}

std::string percent(double x) { return fmt::format("{:.0f}%", 100.0 * x); }

// The largest non-atomic floor as a share of the kernel's time, in words with its numbers; a
// kernel whose SMs were mostly idle while one worked says so first (its floors are the busy
// SM's). Without a floor near the time, what the counters leave open.
std::string other_floor_text(const KernelTimePrediction& t, const KernelAnalysis& a, const KernelProfile& p,
                             std::optional<double> duration) {
  if (!duration) return "";
  const double T = *duration;
  if (t.sm_active_balance > 0 && t.sm_active_balance < kFewSmsBalance)
    return fmt::format("few SMs do the work: the mean SM was active {} of the busiest SM's cycles",
                       percent(t.sm_active_balance));
  const double issue = t.issue_ns.value_or(0) / T, memory = t.memory_ns.value_or(0) / T;
  const double loads = t.load_latency_ns.value_or(0) / T;
  // One at a time the round trips would take longer than the kernel did: by Little's law its
  // warps kept that many loads in flight at once, and the loads' latency still sets its time.
  if (loads > 1.0 && loads >= memory && loads >= issue)
    return fmt::format("load latency: {:.3g} loads per resident warp at {:.0f} ns per round trip, about {:.1f} in "
                       "flight per warp at once (one at a time they would take {} of the kernel's time; DRAM "
                       "bandwidth {}, instruction issue {})",
                       a.load_latency.loads_per_warp, a.load_latency.round_trip_ns, loads, percent(loads),
                       percent(memory), percent(issue));
  if (loads >= kFloorExplainsShare && loads >= memory && loads >= issue)
    return fmt::format("load latency: {:.3g} loads per resident warp, each waited for, at {:.0f} ns per round trip "
                       "take {} of the kernel's time (DRAM bandwidth {}, instruction issue {})",
                       a.load_latency.loads_per_warp, a.load_latency.round_trip_ns, percent(loads),
                       percent(memory), percent(issue));
  if (memory >= kFloorExplainsShare && memory >= issue)
    return fmt::format("DRAM bandwidth: reading {:.3g} MB at the {:.0f} GB/s peak takes {} of the kernel's time",
                       *p.counter(metric::kDramBytesRead) / 1e6, p.device.dram_peak_bytes_per_s / 1e9, percent(memory));
  if (issue >= kFloorExplainsShare)
    return fmt::format("instruction issue: the busiest SM issued warp instructions in {} of its cycles (4 per cycle)",
                       percent(issue));
  return fmt::format("no floor the counters give explains its time: DRAM {}, instruction issue {}, load latency {} "
                     "of it (other latency or work)",
                     t.memory_ns ? percent(memory) : std::string("unknown"), t.issue_ns ? percent(issue) : std::string("unknown"),
                     t.load_latency_ns ? percent(loads) : std::string("unknown"));
}

}  // namespace

RestFloor rest_floor(const KernelProfile& p) {
  RestFloor f;
  const auto bytes = p.counter(metric::kDramBytesRead);
  if (bytes && std::isfinite(*bytes) && *bytes >= 0 && p.device.dram_peak_bytes_per_s > 0) {
    f.measured = true;
    f.ns = *bytes / p.device.dram_peak_bytes_per_s * 1e9;
    f.basis = fmt::format("non-atomic work {:.1f} us (reading {:.0f} MB from DRAM at the reachable bandwidth)",
                          f.ns / 1e3, *bytes / 1e6);
  }
  return f;
}

KernelTimePrediction predict_kernel_time(const KernelAnalysis& a, const KernelProfile& p) {
  KernelTimePrediction t;
  const auto duration = finite_positive(p.counter(metric::kDurationNs));
  if (a.units_in_sequence.sets_class && a.units_in_sequence.atomic_bound_time_ns) {
    t.atomic_ns = a.units_in_sequence.atomic_bound_time_ns;
  } else {
    const std::optional<double> shared = a.evaluated ? a.utilization.atomic_bound_time_ns : std::nullopt;
    const std::optional<double> l2 = a.l2.evaluated ? a.l2.atomic_bound_time_ns : std::nullopt;
    if (shared || l2) t.atomic_ns = std::max(shared.value_or(0.0), l2.value_or(0.0));
  }
  if (a.dsmem.evaluated && a.dsmem.atomic_bound_time_ns && *a.dsmem.atomic_bound_time_ns > t.atomic_ns.value_or(0.0))
    t.atomic_ns = a.dsmem.atomic_bound_time_ns;
  // The busiest SM's issue cycles as a share of its active cycles, times the kernel's duration.
  const auto instructions = finite_positive(p.counter(metric::kInstExecutedMax));
  const auto active = finite_positive(p.counter(metric::kCyclesActiveMax));
  if (instructions && active && duration)
    t.issue_ns = std::min(1.0, *instructions / kWarpSchedulersPerSm / *active) * *duration;
  if (const RestFloor dram = rest_floor(p); dram.ns > 0) t.memory_ns = dram.ns;
  if (a.load_latency.evaluated) t.load_latency_ns = a.load_latency.floor_ns;
  t.load_latency_basis = a.load_latency.evaluated ? a.load_latency.basis : a.load_latency.not_evaluated_reason;
  const std::pair<const std::optional<double>*, const char*> floors[] = {{&t.atomic_ns, "atomic units"},
                                                                          {&t.issue_ns, "instruction issue"},
                                                                          {&t.memory_ns, "memory"},
                                                                          {&t.load_latency_ns, "load latency"}};
  for (const auto& [floor, name] : floors)
    if (*floor && (!t.predicted_ns || **floor > *t.predicted_ns)) {
      t.predicted_ns = **floor;
      t.bound_by = name;
    }
  const auto active_avg = finite_positive(p.counter(metric::kCyclesActiveAvg));
  if (active_avg && active) t.sm_active_balance = std::min(1.0, *active_avg / *active);
  t.other_floor = other_floor_text(t, a, p, duration);
  return t;
}

}  // namespace atomq::model::detail
