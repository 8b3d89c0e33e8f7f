// The findings of one kernel's analysis (docs/model.md): each rule adds at most one finding,
// with its evidence, recommendation and what-if predictions.
#include "findings.hpp"
#include "atomq/model/atomic_sites.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "atomq/model/metric_names.hpp"

namespace atomq::model::detail {

namespace {

std::string percent(double u) { return fmt::format("{:.0f}%", 100.0 * u); }

std::vector<Evidence> core_evidence(const KernelAnalysis& a) {
  const ModelInputs& in = a.inputs;
  return {
      {"utilization_mean", a.utilization.mean, "fraction"},
      {"utilization_max", a.utilization.max, "fraction"},
      {"service_cycles", a.utilization.service.cycles, "cycles per warp instruction"},
      {"instructions", in.instructions, "warp instructions"},
      {"queue_length", a.queue_length, "warps"},
      {"active_lanes", in.active_lanes, "lanes"},
      {"cas_share", in.cas_share, "fraction"},
      {"wavefronts_per_instruction", in.wavefronts_per_instruction, "wavefronts"},
      {"active_cycles_max", in.active_cycles_max, "cycles"},
  };
}

// A finding about the atomic unit itself: its kind and title, with the core evidence.
Finding core_finding(const KernelAnalysis& a, FindingKind kind, std::string title) {
  Finding f;
  f.kind = kind;
  f.title = std::move(title);
  f.evidence = core_evidence(a);
  return f;
}

// The class statement: always the first finding of an evaluated kernel; it names the unit
// that binds (the L2 slices' headline comes from l2_findings.cpp).
void add_utilization_finding(KernelAnalysis& a) {
  if (a.units_in_sequence.sets_class) {
    a.findings.push_back(units_in_sequence_finding(a));
    return;
  }
  if (a.binding_unit == BindingUnit::kL2AtomicUnit) {
    a.findings.push_back(l2_utilization_finding(a));
    return;
  }
  Finding f;
  f.kind = FindingKind::kUtilization;
  f.evidence = core_evidence(a);
  const std::string u = percent(a.utilization.mean);
  switch (a.shared_unit_class) {
    case UtilizationClass::kSevere:
      f.title = "Severe shared-atomic bottleneck: utilization " + u;
      f.recommendation = "The atomic unit limits this kernel; the findings below say why.";
      break;
    case UtilizationClass::kPotential:
      f.title = "Potential shared-atomic bottleneck: utilization " + u;
      f.recommendation = "The atomic unit is busy most of the time; lowering its load pays "
                         "once the other limits are addressed.";
      break;
    default:
      f.title = "Not bound by the shared atomic unit: utilization " + u;
      f.recommendation = "Look elsewhere first (memory, latency, other instructions).";
      break;
  }
  if (a.l2.evaluated) {
    f.title += fmt::format("; L2 hottest slice {}", percent(a.l2.utilization));
    f.evidence.push_back({"l2_utilization", a.l2.utilization, "fraction"});
  }
  a.findings.push_back(std::move(f));
}

// What-if: twice the warps in flight (up to the SM's limit), when that is more than now.
void add_more_warps_what_if(Finding& f, const KernelAnalysis& a, const ServiceTimeModel& m) {
  const double more_warps = std::min<double>(2.0 * a.queue_length, a.inputs.max_warps_per_sm);
  if (more_warps > a.queue_length * 1.01)
    f.what_ifs.push_back(predict(
        a, m,
        ModelChange{fmt::format("more warps in flight: n from {:.1f} to {:.1f}", a.queue_length,
                                more_warps),
                    more_warps, std::nullopt, std::nullopt, std::nullopt, 1.0, WhatIfId::kMoreWarps}));
}

// Busy unit, many wavefronts per instruction: bank conflicts serialize the lanes.
void add_high_conflict(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r) {
  const ModelInputs& in = a.inputs;
  if (a.utilization.mean < r.high_conflict_utilization ||
      in.wavefronts_per_instruction < r.high_conflict_min_k)
    return;
  Finding f = core_finding(a, FindingKind::kHighUtilizationHighConflict,
                           fmt::format("High utilization, high conflict: {:.1f} wavefronts per "
                                       "atomic instruction serialize the lanes of a warp",
                                       in.wavefronts_per_instruction));
  f.recommendation =
      "Reorganize the data so the lanes of a warp hit different banks: replicate the "
      "sub-histograms (one copy per warp or per lane group) with padding, aggregate equal keys "
      "inside the warp first (__match_any_sync), or sort and run-length encode.";
  const double factor = std::max(1.0, r.replication_factor);
  const double k_replicated = std::max(1.0, in.wavefronts_per_instruction / factor);
  f.what_ifs.push_back(predict(
      a, m,
      ModelChange{fmt::format("replicate {:.0f}x: k from {:.1f} to {:.1f}", factor,
                              in.wavefronts_per_instruction, k_replicated),
                  std::nullopt, std::nullopt, std::nullopt, k_replicated, 1.0, WhatIfId::kReplicate}));
  const double k_free = 1.0 + in.cas_share;  // one wavefront per lane group, two for CAS
  if (k_free < k_replicated)
    f.what_ifs.push_back(predict(
        a, m,
        ModelChange{fmt::format("no conflicts: k from {:.1f} to {:.1f}",
                                in.wavefronts_per_instruction, k_free),
                    std::nullopt, std::nullopt, std::nullopt, k_free, 1.0, WhatIfId::kNoConflicts}));
  a.findings.push_back(std::move(f));
}

// Busy unit, few wavefronts but few lanes: many instructions each carrying little work.
void add_low_conflict(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r) {
  const ModelInputs& in = a.inputs;
  if (a.utilization.mean < r.low_conflict_utilization || in.active_lanes >= r.low_conflict_max_e ||
      in.wavefronts_per_instruction > r.low_conflict_max_k)
    return;
  Finding f = core_finding(a, FindingKind::kHighUtilizationLowConflict,
                           fmt::format("High utilization, low conflict: only {:.1f} active lanes "
                                       "per atomic instruction",
                                       in.active_lanes));
  if (in.active_lanes_origin == Origin::kAssumed)
    f.details.push_back("e is assumed, not measured");
  f.recommendation =
      "Each instruction carries little work: fill the warp (more lanes per atomic, e.g. "
      "compact the active elements first), do more work per instruction (vector or packed "
      "updates), and raise the parallel load n.";
  f.what_ifs.push_back(predict(
      a, m,
      ModelChange{fmt::format("full warps: e from {:.1f} to 32, same thread-level work",
                              in.active_lanes),
                  std::nullopt, 32.0, std::nullopt, std::nullopt, 1.0, WhatIfId::kFullWarps}));
  add_more_warps_what_if(f, a, m);
  a.findings.push_back(std::move(f));
}

// Many CAS instructions or many CAS attempts per update: each costs about two wavefronts.
void add_cas_heavy(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r) {
  const ModelInputs& in = a.inputs;
  std::optional<double> amplification = a.boundness.cas_lane_ops_per_update;
  // Without a count of useful updates, the per-instruction counts of the CAS loops still say
  // how many attempts an update takes (too few for the cas_retry finding, which the caller,
  // add_evaluated_findings, checks first).
  const double site_attempts = amplification ? 0.0 : cas_retry_totals(a.sites).attempts_per_update;
  const bool from_sites = site_attempts > 0;
  if (from_sites) amplification = site_attempts;
  const bool heavy = in.cas_share >= r.cas_heavy_min_c;
  const bool retries = amplification && *amplification >= r.cas_amplification_warn;
  if (!heavy && !retries) return;
  Finding f = core_finding(a, FindingKind::kCasHeavy,
                           fmt::format("CAS-heavy atomic stream: {} of the shared atomics are CAS",
                                       percent(in.cas_share)));
  f.evidence.push_back({"cas_instructions", in.cas, "warp instructions"});
  if (amplification) {
    if (from_sites)
      f.evidence.push_back({"attempts_per_update", *amplification, "CAS lane-attempts per lane update"});
    else
      f.evidence.push_back({"cas_lane_ops_per_update", *amplification, "ratio"});
    f.details.push_back(fmt::format("{:.2f} CAS lane-operations per useful update{}",
                                    *amplification,
                                    from_sites ? " (per-instruction counts of the CAS loops)"
                                    : in.active_lanes_origin == Origin::kAssumed
                                        ? " (with e assumed; an upper bound)"
                                        : ""));
  }
  f.recommendation =
      "CAS costs about two wavefronts per lane and every failed attempt repeats the round "
      "trip. Use a native fetch-and-op where one exists (integer add, min, max, and/or/xor; "
      "for float sums accumulate in integers or fixed point), or reduce contention first so "
      "fewer attempts fail.";
  // Native fetch-and-op: one instruction per update instead of the CAS attempts.
  const double cas_to_alu = amplification && *amplification > 1 ? 1.0 / *amplification : 1.0;
  const double factor = in.instructions > 0
                            ? (in.fetch_and_op + in.cas * cas_to_alu) / in.instructions
                            : 1.0;
  f.what_ifs.push_back(predict(
      a, m,
      ModelChange{from_sites      ? fmt::format("CAS loop replaced by a native fetch-and-op ({:.1f} attempts per "
                                                "update measured per instruction, one left)",
                                                *amplification)
                  : amplification ? "CAS loop replaced by a native fetch-and-op (one attempt per "
                                    "update)"
                                  : "CAS replaced by a native fetch-and-op (retries unknown: none "
                                    "assumed)",
                  std::nullopt, std::nullopt, 0.0,
                  std::max(1.0, in.wavefronts_per_instruction / (1.0 + in.cas_share)), factor,
                  WhatIfId::kNativeFetchAndOp}));
  a.findings.push_back(std::move(f));
}

// A saturated unit that none of the rules above explains (no bank conflict, no idle lanes, no
// CAS): its atomics are as cheap as they get, and their number is the load. Without this finding
// the severe headline ("the findings below say why") would stand alone.
void add_shared_throughput(KernelAnalysis& a) {
  if (a.shared_unit_class != UtilizationClass::kSevere) return;
  for (FindingKind why : {FindingKind::kHighUtilizationHighConflict, FindingKind::kHighUtilizationLowConflict,
                          FindingKind::kCasHeavy, FindingKind::kCasRetry})
    if (a.has(why)) return;
  const ModelInputs& in = a.inputs;
  Finding f = core_finding(a, FindingKind::kSharedThroughput,
                           fmt::format("Shared atomic throughput: the unit is at {} with {:.1f} wavefronts and {:.1f} "
                                       "active lanes per atomic instruction; the number of atomics is the load",
                                       percent(a.utilization.mean), in.wavefronts_per_instruction, in.active_lanes));
  f.details.push_back("no bank conflict, idle lanes or CAS to remove: each atomic instruction already costs about "
                      "one wavefront per lane group");
  f.recommendation =
      "Send fewer shared atomics: combine updates before the atomic (accumulate several per thread in "
      "registers, reduce same-address lanes in the warp with __reduce_add_sync or __match_any_sync, or count "
      "per thread and merge once per block), or move the counting out of the hot loop.";
  a.findings.push_back(std::move(f));
}

// Warps wait about the unloaded latency per atomic while the unit is not busy.
void add_latency_bound(KernelAnalysis& a, const ServiceTimeModel& m) {
  const Boundness& b = a.boundness;
  if (b.verdict != "latency-bound") return;
  Finding f;
  f.kind = FindingKind::kLatencyBound;
  f.title = fmt::format("Latency-bound atomics: each warp waits {:.0f} cycles per atomic, close "
                        "to the unloaded latency of {:.0f}",
                        b.response_cycles, b.unloaded_latency_cycles);
  f.evidence = {{"utilization_mean", a.utilization.mean, "fraction"},
                {"response_cycles", b.response_cycles, "cycles"},
                {"unloaded_latency_cycles", b.unloaded_latency_cycles, "cycles"},
                {"queueing_delay_cycles", b.queueing_delay_cycles, "cycles"},
                {"queue_length", a.queue_length, "warps"}};
  f.recommendation =
      "The unit is only partly busy, yet warps wait on atomics back to back: a dependency "
      "chain (e.g. a CAS retry loop, or an atomic whose result feeds the next one). Break the "
      "chain (independent updates, fetch-and-op instead of CAS) or put more warps in flight.";
  add_more_warps_what_if(f, a, m);
  a.findings.push_back(std::move(f));
}

// The unit below the potential-bottleneck mark while DRAM is busy: the atomics wait for data.
void add_memory(KernelAnalysis& a, const Rules& r) {
  const ModelInputs& in = a.inputs;
  if (a.utilization.mean >= r.potential_utilization || !in.dram_bytes_read ||
      !in.dram_peak_bytes_per_s || !in.duration_ns || *in.duration_ns <= 0)
    return;
  const double bandwidth = *in.dram_bytes_read / (*in.duration_ns * 1e-9);
  const double fraction = bandwidth / *in.dram_peak_bytes_per_s;
  if (fraction < r.memory_busy_fraction) return;
  Finding f;
  f.kind = FindingKind::kHiddenMemoryBottleneck;
  f.title = fmt::format("Memory-bound: DRAM at {} of its bandwidth while the atomic unit is at {}",
                        percent(fraction), percent(a.utilization.mean));
  f.evidence = {{"utilization_mean", a.utilization.mean, "fraction"},
                {"dram_bytes_read", *in.dram_bytes_read, "bytes"},
                {"dram_bandwidth", bandwidth, "bytes/s"},
                {"dram_fraction_of_peak", fraction, "fraction"}};
  f.recommendation = "The atomics wait for data: prefetch, coalesce and vectorize the loads, "
                     "and read fewer bytes (narrower samples).";
  a.findings.push_back(std::move(f));
}

// The busiest SM's unit far above the mean: that SM holds the kernel back.
void add_imbalance(KernelAnalysis& a, const Rules& r) {
  if (!a.inputs.have_busiest_sm || a.utilization.mean <= 0) return;
  // An uneven spread of an idle unit changes nothing: only a busy SM holds the kernel back.
  if (a.utilization.max < r.potential_utilization) return;
  const double ratio = a.utilization.max / a.utilization.mean;
  if (ratio < r.imbalance_ratio) return;
  Finding f;
  f.kind = FindingKind::kImbalance;
  f.title = fmt::format("Imbalance: the busiest SM's atomic unit is at {}, the mean {}",
                        percent(a.utilization.max), percent(a.utilization.mean));
  f.evidence = {{"utilization_mean", a.utilization.mean, "fraction"},
                {"utilization_max", a.utilization.max, "fraction"},
                {"ratio", ratio, "ratio"}};
  f.recommendation = "Some SMs get more atomic work (hot blocks, tail of the grid): spread the "
                     "work more evenly or use more, smaller blocks.";
  a.findings.push_back(std::move(f));
}

// S read outside the calibrated grid (clamped) or extrapolated by the fit: U is approximate.
void add_range_finding(KernelAnalysis& a) {
  const ServiceTimeEstimate& s = a.utilization.service;
  if (s.in_range() && !s.extrapolated_by_fit) return;
  Finding f;
  f.kind = FindingKind::kOutsideCalibratedRange;
  f.title = "The kernel lies outside the calibrated grid: S was clamped to its edge";
  for (const ClampNote& c : s.clamped) {
    f.details.push_back(fmt::format("{} = {:.3g} outside the grid: {:.3g} used", c.axis,
                                    c.requested, c.used));
    f.evidence.push_back({c.axis + "_requested", c.requested, ""});
  }
  if (s.extrapolated_by_fit)
    f.details.push_back("k beyond the most serialized pattern: extrapolated with the fitted "
                        "service-time model");
  f.recommendation = "Treat U as approximate; calibrate a grid that covers this point.";
  a.findings.push_back(std::move(f));
}

}  // namespace

void add_insufficient_data(KernelAnalysis& a, std::vector<std::string> details) {
  Finding f;
  f.kind = FindingKind::kInsufficientData;
  f.title = "Insufficient data: the model cannot be evaluated for this kernel";
  f.details = std::move(details);
  f.recommendation =
      "Collect the missing counters (atomq analyze collects them all) or fix the profile; "
      "each problem above names the counter or field.";
  a.utilization_class = UtilizationClass::kInsufficientData;
  a.evaluated = false;
  a.findings.push_back(std::move(f));
}

void add_table_mismatch(KernelAnalysis& a) {
  if (a.table_chip.empty() || a.chip.empty() || a.table_chip == a.chip) return;
  Finding f;
  f.kind = FindingKind::kTableMismatch;
  f.title = "The calibration table is for " + a.table_chip + ", the kernel ran on " + a.chip;
  f.recommendation = "Run atomq calibrate on this GPU; until then U is only indicative.";
  a.findings.push_back(std::move(f));
}

void add_idle_shared_unit_findings(KernelAnalysis& a) {
  if (a.binding_unit == BindingUnit::kL2AtomicUnit) {
    a.findings.push_back(l2_utilization_finding(a));
    return;
  }
  Finding f;
  f.kind = FindingKind::kUtilization;
  f.title = "No shared-memory atomics: the atomic unit is idle (U = 0)";
  if (a.l2.evaluated)
    f.title += fmt::format("; L2 hottest slice {}", percent(a.l2.utilization));
  f.evidence.push_back({metric::kSharedAtomInst, 0.0, "warp instructions"});
  // Without L2 counters a global-atomic kernel looks idle here: say what was not checked.
  f.recommendation = a.l2.evaluated
                         ? "No atomic unit limits this kernel (shared unit idle, L2 atomic units not saturated): its "
                           "time goes to memory, compute or latency."
                         : "Nothing to change in shared-memory atomics; the L2 atomic counters were not recorded, so "
                           "global atomics were not checked: profile it with atomq analyze for the L2 queue.";
  a.findings.push_back(std::move(f));
}

void add_evaluated_findings(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r) {
  add_utilization_finding(a);
  add_range_finding(a);
  add_high_conflict(a, m, r);
  add_cas_retry(a, m, r);
  if (!a.has(FindingKind::kCasRetry)) {  // the retry loop explains both better
    add_low_conflict(a, m, r);
    add_cas_heavy(a, m, r);
  }
  add_shared_throughput(a);
  add_latency_bound(a, m);
  add_memory(a, r);
  add_imbalance(a, r);
}

}  // namespace atomq::model::detail
