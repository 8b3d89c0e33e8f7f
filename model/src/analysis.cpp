#include "atomq/model/analysis.hpp"
#include "atomq/model/launch_sites.hpp"
#include "atomq/model/metric_names.hpp"

#include "findings.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <exception>

namespace atomq::model {

const Finding* KernelAnalysis::find(FindingKind kind) const {
  for (const Finding& f : findings)
    if (f.kind == kind) return &f;
  return nullptr;
}

namespace {

// The inputs derived from the counters; false (with an "insufficient data" finding that
// lists every problem) when the model cannot be evaluated on them.
bool take_inputs(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m,
                 const Rules& r) {
  DerivedInputs derived = derive_inputs(profile, r, &m.table().provenance);
  a.inputs = derived.inputs;
  a.notes = derived.notes;
  if (derived.usable()) return true;
  std::vector<std::string> details;
  for (const DataProblem& p : derived.problems) details.push_back(p.field + ": " + p.what);
  detail::add_insufficient_data(a, std::move(details));
  return false;
}

// n̂: the seed's occupancy estimate, raised to the floor X * S(1) when it is below it:
// one warp alone completes at most 1 / S(1) atomics per cycle (the calibrated single-warp
// rate), so sustaining X needs at least X * S(1) warps issuing atomics.
void estimate_queue_length(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r) {
  const ModelInputs& in = a.inputs;
  const ServiceTimeEstimate single_warp = m.single_warp_service(
      in.active_lanes, in.cas_share, in.wavefronts_per_instruction, in.variant);
  const double warp_floor = in.throughput_per_sm_cycle() * single_warp.cycles;
  a.queue_length = in.queue_length_seed;
  a.queue_length_method = "achieved occupancy x max warps per SM";
  if (r.uses(ModelTerm::kQueueLengthFloor) && std::isfinite(warp_floor) && warp_floor > a.queue_length) {
    a.queue_length = std::min<double>(warp_floor, in.max_warps_per_sm);
    a.queue_length_method =
        "raised to X x S(1), the fewest warps that sustain the measured rate (occupancy "
        "estimate was lower)";
  }
  a.queue_length = std::max(1.0, a.queue_length);
}

// S at n warps in flight for the kernel's e, c, k, and the mean utilization N * S / T it gives.
std::pair<ServiceTimeEstimate, double> utilization_at(const ModelInputs& in,
                                                      const ServiceTimeModel& m, double n) {
  const ServiceTimeEstimate s =
      m.at(n, in.active_lanes, in.cas_share, in.wavefronts_per_instruction, in.variant);
  return std::make_pair(s, in.instructions * s.cycles / in.active_cycles_sum);
}

// U at n̂ (mean, busiest SM, and at n̂ halved / doubled), busy cycles and the atomic-bound
// time; false (with an "insufficient data" finding) when the table has no S for this point.
bool compute_utilization(KernelAnalysis& a, const ServiceTimeModel& m) {
  const ModelInputs& in = a.inputs;
  const auto [service, u_mean] = utilization_at(in, m, a.queue_length);
  if (!std::isfinite(service.cycles) || service.cycles <= 0) {
    detail::add_insufficient_data(
        a, {"calibration table: no service time for this point (incomplete grid)"});
    return false;
  }
  Utilization& u = a.utilization;
  u.service = service;
  u.mean = u_mean;
  u.low = utilization_at(in, m, std::max(1.0, a.queue_length / 2)).second;
  u.high = utilization_at(in, m, std::min<double>(2 * a.queue_length, in.max_warps_per_sm)).second;
  u.busy_cycles_per_sm = in.sm_count > 0 ? in.instructions * service.cycles / in.sm_count
                                         : u_mean * in.active_cycles_mean;
  if (in.have_busiest_sm) {
    u.busy_cycles_busiest_sm = in.instructions_busiest_sm * service.cycles;
    u.max = u.busy_cycles_busiest_sm / in.active_cycles_max;
  } else {
    u.max = u.mean;
    u.busy_cycles_busiest_sm = u.mean * in.active_cycles_max;
  }
  if (in.clock_mhz && *in.clock_mhz > 0)
    u.atomic_bound_time_ns = u.busy_cycles_busiest_sm / *in.clock_mhz * 1000.0;
  return true;
}

// Little's law R = n̂ / X against the calibrated unloaded latency L: throughput-bound when
// the unit is busy, latency-bound when warps wait about L per atomic, else other work.
void assess_boundness(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r) {
  const ModelInputs& in = a.inputs;
  const ServiceTimeEstimate latency = m.unloaded_latency(
      in.active_lanes, in.cas_share, in.wavefronts_per_instruction, in.variant);
  const double x = in.throughput_per_sm_cycle();
  Boundness& b = a.boundness;
  b.throughput_per_sm_cycle = x;
  b.response_cycles = x > 0 ? a.queue_length / x : 0.0;
  b.unloaded_latency_cycles = latency.cycles;
  b.queueing_delay_cycles = std::max(0.0, b.response_cycles - b.unloaded_latency_cycles);
  b.latency_method = latency.method;
  // A warp that waits for each atomic's result before the next one needs R ~ L; independent
  // atomics let R fall well below L, other work pushes it well above.
  const double r_over_l =
      b.unloaded_latency_cycles > 0 ? b.response_cycles / b.unloaded_latency_cycles : 0.0;
  if (a.utilization.mean >= r.potential_utilization)
    b.verdict = "throughput-bound";
  else if (r_over_l > 0 && r_over_l <= r.latency_bound_max_r_over_l &&
           r_over_l >= 1.0 / r.latency_bound_max_r_over_l)
    b.verdict = "latency-bound";
  else
    b.verdict = "other work";
  if (in.useful_updates && *in.useful_updates > 0 && in.cas > 0)
    b.cas_lane_ops_per_update = in.cas * in.active_lanes / *in.useful_updates;
}

// The DSMEM path binds where it is worse than the kernel's class so far, or as bound and busier
// than the unit that set it.
void bind_dsmem_path(KernelAnalysis& a, const Rules& r) {
  if (!r.uses(ModelTerm::kDsmemPath) || !a.dsmem.evaluated ||
      !more_bound(a.dsmem.utilization_class, UtilizationClass::kNotAtomicBound))
    return;
  const double current = a.binding_unit == BindingUnit::kL2AtomicUnit       ? a.l2.utilization
                         : a.binding_unit == BindingUnit::kSharedAtomicUnit ? a.utilization.mean
                                                                            : 0.0;
  const bool worse = more_bound(a.dsmem.utilization_class, a.utilization_class);
  const bool ties_higher = a.dsmem.utilization_class == a.utilization_class && a.dsmem.utilization > current;
  if (!worse && !ties_higher) return;
  a.utilization_class = a.dsmem.utilization_class;
  a.binding_unit = BindingUnit::kDsmemPath;
}

// The shared unit's class, then the kernel's: the worse of the two units (or of the two in
// sequence, units_in_sequence.cpp), and which binds.
void bind_units(KernelAnalysis& a, const KernelProfile& profile, const Rules& r) {
  const double shared_u = a.evaluated ? a.utilization.mean : 0.0;
  a.utilization_class = a.shared_unit_class;
  a.binding_unit = more_bound(a.shared_unit_class, UtilizationClass::kNotAtomicBound)
                       ? BindingUnit::kSharedAtomicUnit
                       : BindingUnit::kNone;
  if (!a.l2.evaluated) return;
  const UtilizationClass l2 = a.l2.utilization_class;
  const bool l2_worse = more_bound(l2, a.shared_unit_class);
  const bool l2_ties_higher = l2 == a.shared_unit_class && a.l2.utilization > shared_u;
  if (more_bound(l2, UtilizationClass::kNotAtomicBound) && (l2_worse || l2_ties_higher)) {
    a.utilization_class = l2;
    a.binding_unit = BindingUnit::kL2AtomicUnit;
  }
  if (!r.uses(ModelTerm::kUnitsInSequence)) return;
  a.units_in_sequence = detail::units_in_sequence(a, profile, r);
  UnitsInSequence& seq = a.units_in_sequence;
  if (!seq.evaluated || !more_bound(seq.utilization_class, a.utilization_class)) return;
  seq.sets_class = true;
  a.notes.push_back(fmt::format("class {} from the two units in sequence: {}", enum_name(seq.utilization_class),
                                seq.basis));
  a.utilization_class = seq.utilization_class;
  a.binding_unit = a.l2.utilization > shared_u ? BindingUnit::kL2AtomicUnit : BindingUnit::kSharedAtomicUnit;
}

// The shared unit evaluated on the counters; false when it cannot be (insufficient data).
bool evaluate_shared_unit(KernelAnalysis& a, const KernelProfile& profile,
                          const ServiceTimeModel& m, const Rules& r) {
  if (!take_inputs(a, profile, m, r)) return false;
  detail::add_table_mismatch(a);
  estimate_queue_length(a, m, r);
  if (!compute_utilization(a, m)) return false;
  assess_boundness(a, m, r);
  a.shared_unit_class = classify(a.utilization.mean, r);
  a.evaluated = true;
  const ModelInputs& in = a.inputs;
  spdlog::debug("model: {} U mean {:.3f} max {:.3f} S {:.3f} n {:.2f} e {:.2f} c {:.3f} k {:.2f}",
                a.kernel_name, a.utilization.mean, a.utilization.max,
                a.utilization.service.cycles, a.queue_length, in.active_lanes, in.cas_share,
                in.wavefronts_per_instruction);
  return true;
}

// The sites of this launch: its own per-instruction counts, or another launch's structure
// scaled by this launch's counters (launch_sites.hpp), never another launch's figures.
void take_sites(KernelAnalysis& a, const KernelProfile& profile) {
  LaunchSites launch = launch_sites(profile);
  a.sites = std::move(launch.sites);
  for (AtomicSite& s : a.sites)
    if (s.path == AtomicPath::kGeneric) s.path = resolve_generic_path(profile, s.opcode.rfind("RED", 0) == 0);
  a.sites_basis = std::move(launch.basis);
  if (a.sites_basis.basis == InstructionBasis::kDerived) a.notes.push_back("atomic sites " + a.sites_basis.text);
}

// A CAS retry loop binds the kernel through its chain of attempts even where the unit is not
// busy: its class is at least what the loop gives (cas_retry.cpp).
void raise_class_for_cas_retry(KernelAnalysis& a, const Rules& r) {
  if (!r.uses(ModelTerm::kSharedCasRetryClass)) return;
  const std::optional<CasRetryTotals> t = detail::retrying_cas(a, r);
  if (!t) return;
  const UtilizationClass loop_class = detail::cas_retry_class(*t, r);
  if (!more_bound(loop_class, a.shared_unit_class)) return;
  a.notes.push_back(fmt::format("class {} from the CAS retry loops ({:.1f} attempts per update{}, {:.0f}% of the warp "
                                "instructions); the unit's U alone reads {:.0f}%",
                                enum_name(loop_class), t->attempts_per_update,
                                a.sites_basis.derived ? " derived from this launch's counters" : "",
                                100.0 * t->loop_instruction_share, 100.0 * a.utilization.mean));
  a.shared_unit_class = loop_class;
}

// The findings of an evaluated shared unit; the headline also says what one copy per warp would
// do (warp_copies_what_if.cpp).
void add_findings_with_warp_copies(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m,
                                   const Rules& r) {
  detail::add_evaluated_findings(a, m, r);
  if (!r.uses(ModelTerm::kWarpCopies) || a.findings.empty() || a.findings.front().kind != FindingKind::kUtilization)
    return;
  // Not on the L2's headline: copies of shared counters do not touch the L2 slices' queue.
  if (a.binding_unit == BindingUnit::kL2AtomicUnit && !a.units_in_sequence.sets_class) return;
  if (std::optional<WhatIf> w = detail::warp_copies_what_if(a, profile))
    a.findings.front().what_ifs.push_back(std::move(*w));
}

// A kernel neither atomic unit binds: its headline says which floor does, with its numbers,
// instead of "look elsewhere".
void name_the_other_floor(KernelAnalysis& a) {
  if (a.findings.empty() || a.findings.front().kind != FindingKind::kUtilization ||
      a.utilization_class != UtilizationClass::kNotAtomicBound || a.time.other_floor.empty())
    return;
  a.findings.front().recommendation = "Not the atomics: " + a.time.other_floor + ".";
}

// A not-bound kernel with global atomics whose request port was not read (a recording or an ncu
// export made without its counters): the slices' U does not show requests that wait to enter the
// crossbar (docs/model.md, "The request port"), so its headline says what was not checked.
void say_the_port_was_not_read(KernelAnalysis& a) {
  if (a.findings.empty() || a.findings.front().kind != FindingKind::kUtilization ||
      a.utilization_class != UtilizationClass::kNotAtomicBound || !a.l2.evaluated || !(a.l2.inputs.requests > 0) ||
      a.l2.port_utilization)
    return;
  a.findings.front().recommendation +=
      " The SMs' request port to the L2 was not read: where a warp's lanes share words (sorted ids, smooth data), "
      "the atomics can hold it while the slices are not saturated; atomq analyze reads it (an ncu export: the "
      "list of atomq metrics).";
}

// Both queues, the kernel's class and binding unit, then the findings: the headline first.
void evaluate(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m,
              const Rules& r) {
  std::vector<PathTraffic> unmodelled =
      unmodelled_path_traffic(profile, m.l2_section() ? m.l2_section()->ops : std::vector<GlobalAtomicOp>{});
  a.dsmem = evaluate_dsmem_unit(profile, m.dsmem_section(), r);
  if (r.uses(ModelTerm::kLoadLatencyFloor))
    a.load_latency = evaluate_load_latency(profile, m.load_section());
  else
    a.load_latency.not_evaluated_reason = "load latency floor: switched off (rules' terms_off)";
  if (a.dsmem.evaluated)  // modelled now: its finding says what it costs (path_findings.cpp)
    unmodelled.erase(std::remove_if(unmodelled.begin(), unmodelled.end(),
                                    [](const PathTraffic& t) { return t.path == AtomicPath::kDsmem; }),
                     unmodelled.end());
  if (std::optional<std::string> reason = detail::l2_left_to_unmodelled_path(unmodelled))
    a.l2.not_evaluated_reason = std::move(*reason);
  else
    a.l2 = evaluate_l2_queue(profile, m.l2_section(), r);
  // A kernel without shared atomics leaves the unit idle: U = 0, not "insufficient data".
  const auto n = profile.counter(metric::kSharedAtomInst);
  const bool idle_shared_unit = n && *n == 0.0;
  bool shared_ok = true;
  if (idle_shared_unit) {
    a.evaluated = true;
    a.shared_unit_class = UtilizationClass::kNotAtomicBound;
  } else {
    shared_ok = evaluate_shared_unit(a, profile, m, r);
  }
  if (profile.instructions) take_sites(a, profile);
  if (shared_ok && !idle_shared_unit) raise_class_for_cas_retry(a, r);
  if (!a.l2.evaluated) a.notes.push_back(a.l2.not_evaluated_reason);
  bind_units(a, profile, r);
  bind_dsmem_path(a, r);
  if (idle_shared_unit)
    detail::add_idle_shared_unit_findings(a);
  else if (shared_ok)
    add_findings_with_warp_copies(a, profile, m, r);
  else if (a.binding_unit == BindingUnit::kL2AtomicUnit)
    a.findings.insert(a.findings.begin(), detail::l2_utilization_finding(a));
  detail::add_l2_findings(a, profile, m, r);
  detail::add_global_cas_retry(a, profile, m, r);
  detail::add_dsmem_finding(a, profile, m);
  attach_gain_intervals(a, profile, r);
  detail::floor_what_ifs_at_launch(a, profile, m.launch_section(), m.table().provenance.device.name, r);
  a.recommended = recommend_what_if(a);
  a.time = detail::predict_kernel_time(a, profile);
  detail::add_unmodelled_path_findings(a, unmodelled);
  detail::name_what_binds_beside_dsmem(a);
  name_the_other_floor(a);
  say_the_port_was_not_read(a);
}

}  // namespace

KernelAnalysis analyze(const KernelProfile& profile, const ServiceTimeModel& model,
                       const Rules& rules) noexcept {
  KernelAnalysis a;
  try {
    a.kernel_name = profile.kernel_name;
    a.chip = profile.device.chip;
    a.table_chip = model.table().provenance.device.chip;
    evaluate(a, profile, model, rules);
  } catch (const std::exception& e) {
    // A bug or an exhausted resource must not escape as a crash of the report.
    a.findings.clear();
    a.recommended.reset();
    detail::add_insufficient_data(
        a, {std::string("internal error while evaluating the model: ") + e.what()});
  } catch (...) {
    a.findings.clear();
    a.recommended.reset();
    detail::add_insufficient_data(a, {"internal error while evaluating the model"});
  }
  return a;
}

}  // namespace atomq::model
