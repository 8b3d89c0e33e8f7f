// The cas_retry finding: a CAS inside a loop whose attempts per update the per-instruction
// counts give (atomic_sites.cpp). Its what-if replaces the loop's attempts by one native
// atomic per update: the time spent in the loop, estimated by the loop's share of the
// kernel's warp instructions, shrinks by the attempts per warp entry (docs/model.md).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "findings.hpp"

namespace atomq::model::detail {

std::optional<CasRetryTotals> retrying_cas(const KernelAnalysis& a, const Rules& r) {
  const CasRetryTotals t = cas_retry_totals(a.sites);
  if (t.sites == 0 || t.attempts_per_update < r.cas_retry_min_attempts) return std::nullopt;
  return t;
}

UtilizationClass cas_retry_class(const CasRetryTotals& t, const Rules& r) {
  if (t.loop_instruction_share < r.cas_retry_bound_loop_share) return UtilizationClass::kNotAtomicBound;
  return t.attempts_per_update >= r.cas_retry_severe_attempts ? UtilizationClass::kSevere
                                                              : UtilizationClass::kPotential;
}

namespace {

// One attempt per update: the loop's instructions divide by the attempts per warp entry.
WhatIf native_atomic_what_if(const KernelAnalysis& a, const CasRetryTotals& t) {
  WhatIf w;
  w.change = "CAS loop replaced by one native 32-bit atomic per update (integer or fixed-point "
             "accumulation; one attempt each)";
  const double loop_share = t.loop_instruction_share;
  const double attempts = std::max(1.0, t.attempts_per_warp_entry);
  const double time_factor = (1.0 - loop_share) + loop_share / attempts;
  w.instructions = a.inputs.instructions;
  w.speedup = time_factor > 0 ? 1.0 / time_factor : 1.0;
  if (a.inputs.duration_ns) w.predicted_time_ns = *a.inputs.duration_ns * time_factor;
  w.basis = fmt::format(
      "{:.0f}% of the kernel's warp instructions run in its {} CAS loop(s); with {:.1f} attempts per "
      "warp entry replaced by one, that part shrinks {:.1f}x (time taken proportional to "
      "instructions issued; the rest of the kernel unchanged)",
      100.0 * loop_share, t.sites, attempts, attempts);
  return w;
}

}  // namespace

void add_cas_retry(KernelAnalysis& a, const Rules& r) {
  const std::optional<CasRetryTotals> t = retrying_cas(a, r);
  if (!t) return;
  const AtomicSite& worst = *t->worst;
  Finding f;
  f.kind = FindingKind::kCasRetry;
  f.title = fmt::format("CAS retry loop{}: {:.1f} attempts per update ({} at SASS 0x{:04x}{})",
                        t->sites > 1 ? "s" : "", t->attempts_per_update, worst.opcode, worst.offset,
                        t->sites > 1 ? fmt::format(" and {} more copies", t->sites - 1) : "");
  f.evidence = {{"attempts_per_update", t->attempts_per_update, "CAS lane-attempts per lane update"},
                {"attempts_per_warp_entry", t->attempts_per_warp_entry, "CAS executions per warp entry"},
                {"cas_executions", t->cas_executions_per_launch, "warp instructions per launch"},
                {"cas_loop_sites", static_cast<double>(t->sites), "sites"},
                {"loop_instruction_share", t->loop_instruction_share, "fraction"},
                {"utilization_mean", a.utilization.mean, "fraction"}};
  f.details.push_back(fmt::format(
      "per-instruction counts: the worst copy, entered at 0x{:04x}, takes {:.1f} attempts per update; every "
      "failed attempt repeats the load, the arithmetic and the CAS round trip, so the lanes of one address "
      "take turns",
      worst.loop_entry_offset.value_or(0), *worst.attempts_per_update));
  if (worst.opcode.find("CAST.SPIN") != std::string::npos)
    f.details.push_back("ATOMS.CAST.SPIN: the compiler's loop for a shared float or 64-bit atomicAdd (Hopper has "
                        "no native one)");
  f.recommendation =
      "Give each update one native atomic: count in unsigned int (or accumulate fixed point) and convert "
      "once at the end; combine same-address lanes first (warp aggregation: __match_any_sync, or "
      "__reduce_add_sync); or replicate the hot words so fewer lanes contend.";
  f.what_ifs.push_back(native_atomic_what_if(a, *t));
  a.findings.push_back(std::move(f));
}

}  // namespace atomq::model::detail
