// combine_before_cas (docs/model.md, "The CAS retry law"): a global CAS loop on one word whose
// updates are combined in the warp and the block first, so each block sends one CAS loop. The
// law prices what is left: the blocks' updates contend for the word, one success per round
// trip L while they do, each attempt S at the slice.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "atomq/model/cas_retry_law.hpp"
#include "findings.hpp"
#include "l2_what_if.hpp"

namespace atomq::model::detail {

namespace {

// What the law reads of the kernel: updates, the blocks that hold them, the lanes that contend.
struct LoopShape {
  double updates = 0;
  double blocks_with_updates = 0;  // grid-stride: the first `updates` threads hold one each
  double resident_blocks = 0;      // of those, at once
  double contending_lanes = 0;     // in the loop at once, before the fix
};

std::optional<LoopShape> loop_shape(const KernelProfile& p, const CasRetryTotals& t) {
  LoopShape s;
  s.updates = p.useful_updates.value_or(t.entries_per_launch * t.lanes_per_entry);
  const double tpb = static_cast<double>(p.launch.threads_per_block());
  const double blocks = static_cast<double>(p.launch.blocks());
  if (!(s.updates > 0) || !(tpb > 0) || !(blocks > 0)) return std::nullopt;
  const double with_work = std::min(blocks * tpb, s.updates);
  s.blocks_with_updates = std::ceil(with_work / tpb);
  const double slots = p.launch.max_active_blocks_per_sm > 0 && p.device.sm_count > 0
                           ? static_cast<double>(p.launch.max_active_blocks_per_sm) * p.device.sm_count
                           : s.blocks_with_updates;
  s.resident_blocks = std::min(s.blocks_with_updates, slots);
  s.contending_lanes = std::min(with_work, slots * tpb);
  return s;
}

}  // namespace

// The share of updates that change the word (a float max stops changing it once the running
// value is large): only those make the others' compares fail. The kernel's own attempts per
// update against the law's at its contention say how many did.
std::optional<ChangingShare> changing_update_share(const KernelAnalysis& a, const KernelProfile& p,
                                                   const CasRetryTotals& t, const CasRetryLaw& law) {
  const std::optional<LoopShape> s = loop_shape(p, t);
  // One word only: over several, the lanes per word (the law's m) are not known.
  if (!law.fitted || !s || a.l2.basis != L2ServiceBasis::kHotAddress || law.attempts_by_lanes.empty())
    return std::nullopt;
  ChangingShare c;
  c.lanes = s->contending_lanes;
  c.sweep_lanes = law.attempts_by_lanes.back().first;
  c.law_attempts = law.attempts_per_update(c.lanes);
  c.sweep_attempts = law.attempts_per_update(std::min(c.lanes, c.sweep_lanes));
  auto share = [&](double law_attempts) {
    return std::clamp((t.attempts_per_update - 1.0) / std::max(1e-9, law_attempts - 1.0), 0.0, 1.0);
  };
  // Taken as rising with m (the sweep's medians dip by a few percent between neighbouring lane
  // counts): the smaller share is the high end's, whichever a(m) gives it.
  std::tie(c.least, c.most) = std::minmax(share(c.law_attempts), share(c.sweep_attempts));
  return c;
}

std::optional<WhatIf> combine_before_cas(const KernelAnalysis& a, const KernelProfile& p, const CasRetryTotals& t,
                                         const CasRetryLaw& law, const Rules& r, std::vector<std::string>& details) {
  if (!law.fitted) {
    details.push_back("no combine-before-CAS what-if: " + law.not_fitted_reason);
    return std::nullopt;
  }
  if (a.l2.basis != L2ServiceBasis::kHotAddress) {
    details.push_back("no combine-before-CAS what-if: this loop's updates spread over several words; the retry law "
                      "prices words that contend all at once (the sweep), not the blocks' flushes after the fix, "
                      "which meet the words at different times");
    return std::nullopt;
  }
  const std::optional<TimeSplit> ts = time_split(a, p, r);
  const std::optional<LoopShape> s = loop_shape(p, t);
  const std::optional<ChangingShare> share_of_updates = changing_update_share(a, p, t, law);
  if (!ts || !s || !share_of_updates) return std::nullopt;
  const ChangingShare& changing = *share_of_updates;
  const double far = law.far_round_trip_cycles > 0 ? law.far_round_trip_cycles : law.round_trip_cycles;
  // L2 cycles per block's update after the fix, a share `c` of them changing the word.
  auto attempts_after = [&](double c) { return 1.0 + (law.attempts_per_update(s->resident_blocks) - 1.0) * c; };
  auto cycles = [&](double c, double round_trip) {
    return c * std::max(round_trip, attempts_after(c) * law.service_cycles) + (1.0 - c) * law.service_cycles;
  };
  const double ns = 1e3 / law.l2_clock_mhz;
  const double fast_ns =
      std::max(ts->other_ns, s->blocks_with_updates * cycles(changing.least, law.round_trip_cycles) * ns);
  const double slow_ns = ts->other_ns + s->blocks_with_updates * cycles(changing.most, far) * ns;
  WhatIf w;
  w.id = WhatIfId::kCombineBeforeCas;
  w.change = fmt::format("combine the updates in the warp and the block first, one CAS loop per block: {:.3g} "
                         "updates of the word become {:.0f}", s->updates, s->blocks_with_updates);
  w.instructions = s->blocks_with_updates;
  w.service_cycles = law.service_cycles;
  w.predicted_time_ns = fast_ns;
  w.least_change_time_ns = slow_ns;
  w.speedup = ts->time_ns / fast_ns;
  GainInterval& g = w.interval;
  g.evaluated = true;
  g.low = ts->time_ns / slow_ns;
  g.high = w.speedup;
  g.time_ns_at_low = slow_ns;
  g.time_ns_at_high = fast_ns;
  const std::string share =
      changing.beyond_sweep()
          ? fmt::format("{:.2g}% (high) to {:.2g}% (low) of this loop's updates change the word ({:.3g} attempts "
                        "per update against the law's {:.3g} at {:.0f} contending lanes, extrapolated beyond the "
                        "sweep's {:.0f}, whose a({:.0f}) = {:.3g} bounds it from below)",
                        100.0 * changing.least, 100.0 * changing.most, t.attempts_per_update, changing.law_attempts,
                        changing.lanes, changing.sweep_lanes, changing.sweep_lanes, changing.sweep_attempts)
          : fmt::format("{:.0f}% of this loop's updates change the word ({:.3g} attempts per update against the "
                        "law's {:.3g} at {:.0f} contending lanes)",
                        100.0 * changing.least, t.attempts_per_update, changing.law_attempts, changing.lanes);
  const std::string after =
      changing.beyond_sweep()
          ? fmt::format("{:.3g} (high) to {:.3g} (low) attempts", attempts_after(changing.least),
                        attempts_after(changing.most))
          : fmt::format("{:.3g} attempts", attempts_after(changing.least));
  g.basis = fmt::format(
      "retry law: {:.0f} blocks hold the updates ({:.0f} at once); {}, so after the fix each takes {} at S "
      "{:.2f} L2 cycles and a round trip of {:.0f} (high) to {:.0f} (low) L2 cycles per success; the rest ({}) "
      "overlapped (high) or not (low)",
      s->blocks_with_updates, s->resident_blocks, share, after, law.service_cycles, law.round_trip_cycles, far,
      ts->other_basis);
  w.basis = g.basis;
  return w;
}

}  // namespace atomq::model::detail
