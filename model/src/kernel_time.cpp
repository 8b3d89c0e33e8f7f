// Predicted kernel time (docs/model.md, "Predicted kernel time"): the largest floor the counters
// give. Each floor is a time the kernel cannot beat: an atomic unit busy that long, the busiest
// SM issuing its warp instructions at 4 per cycle, the DRAM bytes read at the peak bandwidth.
#include <algorithm>
#include <cmath>

#include "atomq/model/metric_names.hpp"
#include "findings.hpp"

namespace atomq::model::detail {

namespace {

std::optional<double> finite_positive(const std::optional<double>& v) {
  return v && std::isfinite(*v) && *v > 0 ? v : std::nullopt;
}

}  // namespace

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
  // The busiest SM's issue cycles as a share of its active cycles, times the kernel's duration.
  const auto instructions = finite_positive(p.counter(metric::kInstExecutedMax));
  const auto active = finite_positive(p.counter(metric::kCyclesActiveMax));
  if (instructions && active && duration)
    t.issue_ns = std::min(1.0, *instructions / kWarpSchedulersPerSm / *active) * *duration;
  const auto bytes = finite_positive(p.counter(metric::kDramBytesRead));
  if (bytes && p.device.dram_peak_bytes_per_s > 0) t.memory_ns = *bytes / p.device.dram_peak_bytes_per_s * 1e9;
  const std::pair<const std::optional<double>*, const char*> floors[] = {
      {&t.atomic_ns, "atomic units"}, {&t.issue_ns, "instruction issue"}, {&t.memory_ns, "memory"}};
  for (const auto& [floor, name] : floors)
    if (*floor && (!t.predicted_ns || **floor > *t.predicted_ns)) {
      t.predicted_ns = **floor;
      t.bound_by = name;
    }
  return t;
}

}  // namespace atomq::model::detail
