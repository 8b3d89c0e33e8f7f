// The cas_retry finding: a CAS inside a loop whose attempts per update the per-instruction
// counts give (atomic_sites.cpp). Its what-if replaces the loop's attempts by one native
// atomic per update: the time spent in the loop, estimated by the loop's share of the
// kernel's warp instructions, shrinks by the attempts per warp entry (docs/model.md).
#include <fmt/format.h>

#include <algorithm>

#include "findings.hpp"

namespace atomq::model::detail {

const AtomicSite* retrying_cas_site(const KernelAnalysis& a, const Rules& r) {
  const AtomicSite* best = nullptr;
  for (const AtomicSite& s : a.sites) {
    if (!s.is_cas || !s.in_loop || !s.attempts_per_update || !s.attempts_per_warp_entry) continue;
    if (*s.attempts_per_update < r.cas_retry_min_attempts) continue;
    if (!best || *s.attempts_per_update > *best->attempts_per_update) best = &s;
  }
  return best;
}

UtilizationClass cas_retry_class(const AtomicSite& site, const Rules& r) {
  if (site.loop_instruction_share.value_or(0) < r.cas_retry_bound_loop_share) return UtilizationClass::kNotAtomicBound;
  return site.attempts_per_update.value_or(0) >= r.cas_retry_severe_attempts ? UtilizationClass::kSevere
                                                                           : UtilizationClass::kPotential;
}

namespace {

// One attempt per update: the loop's instructions divide by the attempts per warp entry.
WhatIf native_atomic_what_if(const KernelAnalysis& a, const AtomicSite& site) {
  WhatIf w;
  w.change = "CAS loop replaced by one native 32-bit atomic per update (integer or fixed-point "
             "accumulation; one attempt each)";
  const double loop_share = site.loop_instruction_share.value_or(0);
  const double attempts = std::max(1.0, *site.attempts_per_warp_entry);
  const double time_factor = (1.0 - loop_share) + loop_share / attempts;
  w.instructions = a.inputs.instructions;
  w.speedup = time_factor > 0 ? 1.0 / time_factor : 1.0;
  if (a.inputs.duration_ns) w.predicted_time_ns = *a.inputs.duration_ns * time_factor;
  w.basis = fmt::format(
      "{:.0f}% of the kernel's warp instructions run in the loop at 0x{:04x}; with {:.1f} attempts per "
      "warp entry replaced by one, that part shrinks {:.1f}x (time taken proportional to "
      "instructions issued; the rest of the kernel unchanged)",
      100.0 * loop_share, site.offset, attempts, attempts);
  return w;
}

}  // namespace

void add_cas_retry(KernelAnalysis& a, const Rules& r) {
  const AtomicSite* site = retrying_cas_site(a, r);
  if (!site) return;
  Finding f;
  f.kind = FindingKind::kCasRetry;
  f.title = fmt::format("CAS retry loop at SASS 0x{:04x} ({}): {:.1f} attempts per update", site->offset,
                        site->opcode, *site->attempts_per_update);
  f.evidence = {{"attempts_per_update", *site->attempts_per_update, "CAS lane-attempts per lane update"},
                {"attempts_per_warp_entry", *site->attempts_per_warp_entry, "CAS executions per warp entry"},
                {"cas_executions", site->executions_per_launch, "warp instructions per launch"},
                {"loop_instruction_share", site->loop_instruction_share.value_or(0), "fraction"},
                {"utilization_mean", a.utilization.mean, "fraction"}};
  f.details.push_back(fmt::format(
      "per-instruction counts: the loop is entered at 0x{:04x}; every failed attempt repeats the load, "
      "the arithmetic and the CAS round trip, so the lanes of one address take turns",
      site->loop_entry_offset.value_or(0)));
  if (site->opcode.find("CAST.SPIN") != std::string::npos)
    f.details.push_back("ATOMS.CAST.SPIN: the compiler's loop for a shared float or 64-bit atomicAdd (Hopper has "
                        "no native one)");
  f.recommendation =
      "Give each update one native atomic: count in unsigned int (or accumulate fixed point) and convert "
      "once at the end; combine same-address lanes first (warp aggregation: __match_any_sync, or "
      "__reduce_add_sync); or replicate the hot words so fewer lanes contend.";
  f.what_ifs.push_back(native_atomic_what_if(a, *site));
  a.findings.push_back(std::move(f));
}

}  // namespace atomq::model::detail
