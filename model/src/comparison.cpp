#include "atomq/model/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace atomq::model {

namespace {

void row(KernelComparison& c, std::string quantity, std::string unit, double a, double b) {
  ComparisonRow r{std::move(quantity), std::move(unit), a, b, std::nullopt};
  if (a != 0 && std::isfinite(a) && std::isfinite(b)) r.ratio = b / a;
  c.rows.push_back(std::move(r));
}

// The quantities side by side; duration and DRAM bytes only when both kernels have them.
void add_rows(KernelComparison& c, const KernelAnalysis& a, const KernelAnalysis& b) {
  const ModelInputs& ia = a.inputs;
  const ModelInputs& ib = b.inputs;
  row(c, "thread-level atomic operations", "operations", ia.instructions * ia.active_lanes,
      ib.instructions * ib.active_lanes);
  row(c, "warp-level atomic instructions N", "instructions", ia.instructions, ib.instructions);
  row(c, "utilization U (mean)", "fraction", a.utilization.mean, b.utilization.mean);
  row(c, "utilization U (max over SMs)", "fraction", a.utilization.max, b.utilization.max);
  row(c, "active lanes e", "lanes", ia.active_lanes, ib.active_lanes);
  row(c, "wavefronts per instruction k", "wavefronts", ia.wavefronts_per_instruction,
      ib.wavefronts_per_instruction);
  row(c, "CAS share c", "fraction", ia.cas_share, ib.cas_share);
  row(c, "queue length n", "warps", a.queue_length, b.queue_length);
  row(c, "service time S", "cycles", a.utilization.service.cycles, b.utilization.service.cycles);
  row(c, "busiest SM active cycles", "cycles", ia.active_cycles_max, ib.active_cycles_max);
  if (ia.duration_ns && ib.duration_ns) {
    row(c, "duration", "ns", *ia.duration_ns, *ib.duration_ns);
    if (*ib.duration_ns > 0) c.speedup_b_over_a = *ia.duration_ns / *ib.duration_ns;
  }
  if (ia.dram_bytes_read && ib.dram_bytes_read)
    row(c, "DRAM bytes read", "bytes", *ia.dram_bytes_read, *ib.dram_bytes_read);
}

// Seed pattern: U drops while global memory traffic rises. hi is the kernel with the higher
// U, lo the other; du = U(a) - U(b).
void add_hidden_memory_bottleneck(KernelComparison& c, const KernelAnalysis& a,
                                  const KernelAnalysis& b, const KernelAnalysis& hi,
                                  const KernelAnalysis& lo, double du, const Rules& rules) {
  const auto& hi_bytes = hi.inputs.dram_bytes_read;
  const auto& lo_bytes = lo.inputs.dram_bytes_read;
  const bool traffic_rose = hi_bytes && lo_bytes && *hi_bytes > 0 &&
                            std::fabs(du) >= rules.memory_u_drop &&
                            *lo_bytes >= *hi_bytes * (1.0 + rules.memory_traffic_growth);
  if (!traffic_rose) return;
  Finding f;
  f.kind = FindingKind::kHiddenMemoryBottleneck;
  f.title = fmt::format("Hidden memory bottleneck in {}: utilization {:.0f}% against {:.0f}% "
                        "while DRAM traffic is {:.0f}% higher",
                        lo.kernel_name, 100 * lo.utilization.mean, 100 * hi.utilization.mean,
                        100 * (*lo_bytes / *hi_bytes - 1.0));
  f.evidence = {{"utilization_a", a.utilization.mean, "fraction"},
                {"utilization_b", b.utilization.mean, "fraction"},
                {"dram_bytes_a", *a.inputs.dram_bytes_read, "bytes"},
                {"dram_bytes_b", *b.inputs.dram_bytes_read, "bytes"}};
  f.recommendation = "The atomics wait for memory: prefetch, coalesce, read fewer bytes.";
  c.findings.push_back(std::move(f));
}

// The what-if of a with the largest gain (its interval evaluated) against the measured gain.
std::optional<PredictedGain> predicted_gain(const KernelAnalysis& a, const std::optional<double>& measured) {
  if (!measured) return std::nullopt;
  const WhatIf* best = nullptr;
  for (const Finding& f : a.findings)
    for (const WhatIf& w : f.what_ifs)
      if (w.interval.evaluated && (!best || w.interval.high > best->interval.high)) best = &w;
  if (!best) return std::nullopt;
  return PredictedGain{best->id, best->change, best->interval, *measured, best->interval.contains(*measured)};
}

}  // namespace

// U differences below this are the counters' run-to-run noise, not a change.
constexpr double kUtilizationNoise = 0.03;

KernelComparison compare(const KernelAnalysis& a, const KernelAnalysis& b, const Rules& rules) {
  KernelComparison c;
  c.kernel_a = a.kernel_name;
  c.kernel_b = b.kernel_name;
  c.class_a = a.utilization_class;
  c.class_b = b.utilization_class;
  if (!a.evaluated || !b.evaluated) {
    c.more_atomic_bound = "unknown";
    c.summary = "Cannot compare: " +
                std::string(!a.evaluated ? a.kernel_name : b.kernel_name) +
                " has insufficient data.";
    return c;
  }
  add_rows(c, a, b);
  c.predicted_gain = predicted_gain(a, c.speedup_b_over_a);

  // Counter noise puts a saturated unit slightly above 100%, and U differs by a few percent
  // between runs of one kernel: neither makes one kernel "more bound" than another.
  const double ua = std::min(a.utilization.mean, 1.0), ub = std::min(b.utilization.mean, 1.0);
  const double du = ua - ub;
  c.more_atomic_bound = std::fabs(du) < kUtilizationNoise ? "equal" : (du > 0 ? "a" : "b");

  const KernelAnalysis& hi = du >= 0 ? a : b;
  const KernelAnalysis& lo = du >= 0 ? b : a;
  add_hidden_memory_bottleneck(c, a, b, hi, lo, du, rules);

  const bool both_saturated = std::min(ua, ub) >= 1.0 - kUtilizationNoise;
  c.summary = c.more_atomic_bound == "equal"
                  ? (both_saturated ? fmt::format("{} and {} both saturate the shared atomic unit (U 100%).",
                                                  a.kernel_name, b.kernel_name)
                                    : fmt::format("{} and {} load the atomic unit equally (U {:.0f}%, within {:.0f} "
                                                  "points).",
                                                  a.kernel_name, b.kernel_name, 100 * ua, 100 * kUtilizationNoise))
                  : fmt::format("{} is more bound by the shared atomic unit (U {:.0f}%, {}, e "
                                "{:.1f}, k {:.1f}) than {} (U {:.0f}%, {}, e {:.1f}, k {:.1f}).",
                                hi.kernel_name, 100 * std::min(hi.utilization.mean, 1.0),
                                enum_name(hi.utilization_class), hi.inputs.active_lanes,
                                hi.inputs.wavefronts_per_instruction, lo.kernel_name,
                                100 * std::min(lo.utilization.mean, 1.0), enum_name(lo.utilization_class),
                                lo.inputs.active_lanes, lo.inputs.wavefronts_per_instruction);
  return c;
}

}  // namespace atomq::model
