// The cas_retry finding: a CAS inside a loop whose attempts per update the per-instruction
// counts give (atomic_sites.cpp). Its what-if replaces the loop's attempts by one native
// atomic per update: the time spent in the loop, estimated by the loop's share of the
// kernel's warp instructions, shrinks by the attempts per warp entry (docs/model.md).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "findings.hpp"
#include "l2_what_if.hpp"

namespace atomq::model::detail {

std::optional<CasRetryTotals> retrying_cas(const KernelAnalysis& a, const Rules& r) {
  const CasRetryTotals t = cas_retry_totals(a.sites);
  if (t.sites == 0 || t.attempts_per_update < r.cas_retry_min_attempts) return std::nullopt;
  return t;
}

std::optional<CasRetryTotals> retrying_global_cas(const KernelAnalysis& a, const Rules& r) {
  std::optional<CasRetryTotals> t = retrying_cas(a, r);
  if (!t || t->worst->unit != SiteUnit::kGlobal) return std::nullopt;
  return t;
}

UtilizationClass cas_retry_class(const CasRetryTotals& t, const Rules& r) {
  if (t.loop_instruction_share < r.cas_retry_bound_loop_share) return UtilizationClass::kNotAtomicBound;
  return t.attempts_per_update >= r.cas_retry_severe_attempts ? UtilizationClass::kSevere
                                                              : UtilizationClass::kPotential;
}

namespace {

// The fix's native atomics, the same in both what-ifs: one 32-bit atomic per warp entry of the
// loop (same-address lanes merged, as ATOMS.POPC.INC does) at the calibrated service time.
ServiceTimeEstimate native_atomic_service(const KernelAnalysis& a, const ServiceTimeModel& m, const CasRetryTotals& t) {
  return m.at(std::max(1.0, a.queue_length), std::clamp(t.lanes_per_entry, 1.0, 32.0), 0.0, 1.0,
              calibration::OpVariant::kPopcInc);
}

// The unit after the fix: the native atomics at their service time, over the kernel's active
// cycles shortened by the what-if's speedup (as predict() does).
void set_native_atomics(WhatIf& w, const KernelAnalysis& a, const CasRetryTotals& t, const ServiceTimeEstimate& s) {
  w.queue_length = std::max(1.0, a.queue_length);
  w.active_lanes = std::clamp(t.lanes_per_entry, 1.0, 32.0);
  w.cas_share = 0.0;
  w.wavefronts_per_instruction = 1.0;
  w.instructions = t.entries_per_launch;
  w.service_cycles = s.cycles;
  w.outside_calibrated_range = !s.in_range();
  const double active = w.speedup > 0 ? a.inputs.active_cycles_sum / w.speedup : 0.0;
  w.predicted_utilization = active > 0 ? w.instructions * s.cycles / active : 0.0;
}

// One native atomic per update, the rest of the kernel at the SMs' issue rate: the loop's
// serialized attempts gone, what remains is the kernel's other instructions (issued at best
// 4 per SM-cycle) and one native 32-bit atomic per warp update (same-address lanes merged, as
// ATOMS.POPC.INC does), at the calibrated service time. A lower bound on the time.
std::optional<WhatIf> native_atomic_issue_bound(const KernelAnalysis& a, const ServiceTimeEstimate& s,
                                                const CasRetryTotals& t) {
  const ModelInputs& in = a.inputs;
  if (!in.duration_ns || !in.clock_mhz || in.sm_count <= 0 || t.kernel_instructions_per_launch <= 0) return std::nullopt;
  const double rest = std::max(0.0, t.kernel_instructions_per_launch - t.loop_instructions_per_launch);
  const double e = std::clamp(t.lanes_per_entry, 1.0, 32.0);
  const double issue_cycles = rest / (in.sm_count * kWarpSchedulersPerSm);
  const double atomic_cycles = t.entries_per_launch / in.sm_count * s.cycles;
  double time_ns = (issue_cycles + atomic_cycles) / *in.clock_mhz * 1e3;
  if (in.dram_bytes_read && in.dram_peak_bytes_per_s)
    time_ns = std::max(time_ns, *in.dram_bytes_read / *in.dram_peak_bytes_per_s * 1e9);
  WhatIf w;
  w.id = WhatIfId::kCasLoopNativeBestCase;
  w.change = "CAS loop replaced by one native 32-bit atomic per update; the rest at the issue rate (best case)";
  w.predicted_time_ns = time_ns;
  w.speedup = time_ns > 0 ? *in.duration_ns / time_ns : 1.0;
  set_native_atomics(w, a, t, s);
  w.basis = fmt::format(
      "{:.3g} warp instructions outside the loop(s) at 4 per SM-cycle ({:.0f} cycles per SM) + {:.3g} native "
      "atomics of {:.1f} lanes at S = {:.2f} cycles ({:.0f} cycles per SM), at {:.0f} MHz",
      rest, issue_cycles, t.entries_per_launch, e, s.cycles, atomic_cycles, *in.clock_mhz);
  return w;
}

// One attempt per update: the loop's instructions divide by the attempts per warp entry.
WhatIf native_atomic_what_if(const KernelAnalysis& a, const ServiceTimeEstimate& s, const CasRetryTotals& t) {
  WhatIf w;
  w.id = WhatIfId::kCasLoopNativeWorstCase;
  w.change = "CAS loop replaced by one native 32-bit atomic per update; time proportional to instructions "
             "(worst case)";
  const double loop_share = t.loop_instruction_share;
  const double attempts = std::max(1.0, t.attempts_per_warp_entry);
  const double time_factor = (1.0 - loop_share) + loop_share / attempts;
  w.speedup = time_factor > 0 ? 1.0 / time_factor : 1.0;
  if (a.inputs.duration_ns) w.predicted_time_ns = *a.inputs.duration_ns * time_factor;
  set_native_atomics(w, a, t, s);
  w.basis = fmt::format(
      "{:.0f}% of the kernel's warp instructions run in its {} CAS loop(s); with {:.1f} attempts per "
      "warp entry replaced by one, that part shrinks {:.1f}x (time taken proportional to "
      "instructions issued; the rest of the kernel unchanged)",
      100.0 * loop_share, t.sites, attempts, attempts);
  return w;
}

}  // namespace

void add_cas_retry(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r) {
  const std::optional<CasRetryTotals> t = retrying_cas(a, r);
  if (!t) return;
  const AtomicSite& worst = *t->worst;
  Finding f;
  f.kind = FindingKind::kCasRetry;
  // Derived: another launch's per-instruction counts gave the structure, this launch's counters the amounts.
  const bool derived = a.sites_basis.derived;
  f.title = fmt::format("CAS retry loop{}: {:.1f} attempts per update{} ({} at SASS 0x{:04x}{})",
                        t->sites > 1 ? "s" : "", t->attempts_per_update,
                        derived ? " derived from this launch's counters" : "", worst.opcode, worst.offset,
                        t->sites > 1 ? fmt::format(" and {} more copies", t->sites - 1) : "");
  f.evidence = {{"attempts_per_update", t->attempts_per_update, "CAS lane-attempts per lane update"},
                {"attempts_per_warp_entry", t->attempts_per_warp_entry, "CAS executions per warp entry"},
                {"cas_executions", t->cas_executions_per_launch, "warp instructions per launch"},
                {"cas_loop_sites", static_cast<double>(t->sites), "sites"},
                {"loop_instruction_share", t->loop_instruction_share, "fraction"},
                {"utilization_mean", a.utilization.mean, "fraction"}};
  if (derived) f.details.push_back("attempts " + a.sites_basis.text);
  f.details.push_back(fmt::format(
      "{}: the worst copy, entered at 0x{:04x}, takes {:.1f} attempts per update; every "
      "failed attempt repeats the load, the arithmetic and the CAS round trip, so the lanes of one address "
      "take turns",
      derived ? "derived" : "per-instruction counts", worst.loop_entry_offset.value_or(0), *worst.attempts_per_update));
  if (worst.opcode.find("CAST.SPIN") != std::string::npos)
    f.details.push_back("ATOMS.CAST.SPIN: the compiler's loop for a shared float or 64-bit atomicAdd (Hopper has "
                        "no native one)");
  f.recommendation =
      "Give each update one native atomic: count in unsigned int (or accumulate fixed point) and convert "
      "once at the end; combine same-address lanes first (warp aggregation: __match_any_sync, or "
      "__reduce_add_sync); or replicate the hot words so fewer lanes contend.";
  const ServiceTimeEstimate native = native_atomic_service(a, m, *t);
  if (std::optional<WhatIf> best = native_atomic_issue_bound(a, native, *t)) f.what_ifs.push_back(*best);
  f.what_ifs.push_back(native_atomic_what_if(a, native, *t));
  a.findings.push_back(std::move(f));
}

void add_global_cas_retry(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m, const Rules& r) {
  if (!r.uses(ModelTerm::kGlobalCasRetry) || a.has(FindingKind::kCasRetry)) return;
  const std::optional<CasRetryTotals> t = retrying_global_cas(a, r);
  if (!t) return;
  const AtomicSite& worst = *t->worst;
  const bool derived = a.sites_basis.derived;
  Finding f;
  f.kind = FindingKind::kCasRetry;
  f.title = fmt::format("Global CAS retry loop: {:.1f} attempts per update{} ({} at SASS 0x{:04x}{}{})",
                        t->attempts_per_update, derived ? " derived from this launch's counters" : "", worst.opcode,
                        worst.offset, worst.source.empty() ? "" : ", " + worst.source,
                        t->sites > 1 ? fmt::format(" and {} more copies", t->sites - 1) : "");
  f.evidence = {{"attempts_per_update", t->attempts_per_update, "CAS lane-attempts per lane update"},
                {"attempts_per_warp_entry", t->attempts_per_warp_entry, "CAS executions per warp entry"},
                {"cas_executions", t->cas_executions_per_launch, "warp instructions per launch"},
                {"cas_loop_sites", static_cast<double>(t->sites), "sites"},
                {"l2_utilization", a.l2.utilization, "fraction"}};
  if (derived) f.details.push_back("attempts " + a.sites_basis.text);
  f.details.push_back(fmt::format(
      "every failed attempt is another round trip to the word's L2 slice; {:.1f} of {:.1f} attempts per update "
      "fail, and each holds a request slot at the slice that a successful one could use",
      std::max(0.0, t->attempts_per_update - 1.0), t->attempts_per_update));
  if (std::optional<WhatIf> w = combine_before_cas(a, profile, *t, m.cas_retry_law(), r, f.details))
    f.what_ifs.push_back(*w);
  // Probes over several words whose chain no L2 finding priced (the slices do not bind it): the
  // chain's change when its CASes become loads (cas_probe_what_if.cpp).
  const bool priced = std::any_of(a.findings.begin(), a.findings.end(), [](const Finding& g) {
    return std::any_of(g.what_ifs.begin(), g.what_ifs.end(),
                       [](const WhatIf& w) { return w.id == WhatIfId::kLoadBeforeCas; });
  });
  if (a.l2.basis != L2ServiceBasis::kHotAddress && !priced)
    if (std::optional<WhatIf> w = load_before_cas_on_chain(a, profile, m.load_section(), r))
      f.what_ifs.push_back(std::move(*w));
  f.recommendation =
      "Give each update one native atomic where the op has one (atomicAdd for an add, atomicMax/atomicMin on the "
      "integer bit pattern for a float max/min of one sign); otherwise combine the lanes of one address in the "
      "warp first (__match_any_sync, then one CAS per address), or privatize per block in shared memory and "
      "merge once.";
  a.findings.push_back(std::move(f));
}

}  // namespace atomq::model::detail
