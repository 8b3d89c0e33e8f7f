// The L2 what-ifs that change what a warp sends rather than where it goes (docs/model.md, "The
// L2 queue"): probe with a load before the CAS, replace a CAS spin lock by native atomics, and
// aggregate the lanes of one warp that hit the hot slice's words. Each gives the largest change
// the counters allow (the what-if, the interval's high end) and the least (least_change_time_ns,
// from which the interval's low end is taken), because the counters bound the change from both
// sides only through the useful updates.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "l2_what_if.hpp"

namespace atomq::model::detail {

namespace {

// L2 cycles per request at the hottest slice while it was bound: the L2-bound time over its
// requests (the calibrated S where U <= 1; where requests x S exceed the kernel's time, the
// slice retired them faster than S, and the observed share is what the time can lose).
double bound_cycles_per_request(const KernelAnalysis& a, const TimeSplit& t) {
  const double hottest = a.l2.inputs.requests_hottest_slice;
  return hottest > 0 && t.ns_per_l2_cycle > 0 ? t.l2_busy_ns / t.ns_per_l2_cycle / hottest : 0.0;
}

// Kernel time when the hottest slice keeps `hottest` of its requests at the bound cost each.
// (At most the measured time: the DRAM floor may have raised the non-atomic work above the time
// the L2 left, and a change that removes nothing leaves the kernel as it is.)
double time_with(const TimeSplit& t, double hottest, double cycles) {
  return std::min(t.time_ns, t.other_ns + hottest * cycles * t.ns_per_l2_cycle);
}

// The number of lock acquisitions' releases: non-CAS atomics (atomicExch) at L2.
double non_cas_requests(const L2Inputs& in) { return std::max(0.0, in.requests - in.cas_requests); }

// A lock's release: an atomic exchange in the kernel's SASS (the hint) or among its measured sites.
bool has_atomic_exchange(const KernelAnalysis& a, const KernelProfile& p) {
  if (p.global_atomic_exch.value_or(false)) return true;
  return std::any_of(a.sites.begin(), a.sites.end(), [](const AtomicSite& s) {
    return s.unit == SiteUnit::kGlobal && s.opcode.find(".EXCH") != std::string::npos;
  });
}

}  // namespace

bool looks_like_spin_lock(const KernelAnalysis& a, const KernelProfile& p, const Rules& r) {
  const L2Inputs& in = a.l2.inputs;
  if (in.cas_requests <= 0 || in.cas_share < r.cas_heavy_min_c) return false;
  // One lock word takes one hot address. Locks over many words (one per bucket or group) spread
  // their CASes like a hash probe's, which also retries and adds non-CAS atomics (its counts):
  // there the release itself, an atomic exchange, tells the lock apart.
  if (a.l2.basis != L2ServiceBasis::kHotAddress && !has_atomic_exchange(a, p)) return false;
  // A lock is released by a write: without any non-CAS atomic the CASes are a retry loop of
  // their own (a product or a float max), which the retry law prices (a lock released by a plain
  // store reads as one too).
  if (non_cas_requests(in) <= 0) return false;
  // Attempts per update: every update needs at most one successful CAS (one acquisition).
  const double updates = p.useful_updates.value_or(non_cas_requests(in));
  return updates > 0 && in.cas_requests / updates >= r.cas_retry_min_attempts;
}

std::optional<WhatIf> load_before_cas(const KernelAnalysis& a, const KernelProfile& p, const Rules& r,
                                      const TimeSplit& t, const RemovableCas& removable,
                                      const std::optional<ProbeChainChange>& chain,
                                      std::vector<std::string>& details) {
  const L2Inputs& in = a.l2.inputs;
  if (in.cas_requests <= 0 || in.cas_share < r.cas_heavy_min_c) return std::nullopt;
  if (looks_like_spin_lock(a, p, r)) {
    details.push_back("load before CAS: not proposed for a spin lock (spinning on a load still hands the "
                      "lock over one acquisition at a time; see lock-free)");
    return std::nullopt;
  }
  const double cycles = bound_cycles_per_request(a, t);
  const double hot_cas = in.requests_hottest_slice * in.cas_share * removable.most;
  // Most removed: every CAS (the counters do not count the successful ones). Least removed: all
  // but one per useful update (at most one CAS per update can succeed); without updates, none.
  const double least_removed =
      std::min(1.0, p.useful_updates ? std::max(0.0, 1.0 - *p.useful_updates / in.cas_requests) : 0.0);
  const double kept_cas = in.cas_requests * (1.0 - removable.least * least_removed);
  WhatIf w = predicted(
      t, WhatIfId::kLoadBeforeCas,
      fmt::format("load before CAS: probe with plain loads, CAS only where the compare can succeed: CAS "
                     "requests from {:.3g} to between {:.3g} and {:.3g}", in.cas_requests,
                     in.cas_requests * (1.0 - removable.most), kept_cas),
      in.requests - in.cas_requests * removable.most, in.requests_hottest_slice - hot_cas, cycles, 0,
      fmt::format("high: every CAS at the hottest slice ({:.3g} of {:.3g} requests) can fail; low: {} "
                  "(the failed share is not counted); the loads that replace the failed CASes leave the "
                  "atomic unit but keep their L2 round trip, so a kernel bound by its probe chain's "
                  "latency gains nothing; each request at the slice costs the bound {:.2f} L2 cycles",
                  hot_cas, in.requests_hottest_slice,
                  p.useful_updates ? fmt::format("one CAS per useful update ({:.3g}) is kept", *p.useful_updates)
                                   : std::string("no useful-update count, so none is known to fail"),
                  cycles));
  w.least_change_time_ns =
      time_with(t, in.requests_hottest_slice * (1.0 - in.cas_share * removable.least * least_removed), cycles);
  if (!removable.basis.empty()) w.basis += "; " + removable.basis;
  if (chain) {
    // The probe chain bounds the time too (the slower of the slice and the chain at each end),
    // its wait in series with the non-atomic work.
    const double chain_fast = chain->time_ns(t.time_ns, t.other_ns, true);
    if (chain_fast > *w.predicted_time_ns) {
      w.predicted_time_ns = chain_fast;
      w.speedup = t.time_ns / chain_fast;
    }
    w.least_change_time_ns = std::max(*w.least_change_time_ns, chain->time_ns(t.time_ns, t.other_ns, false));
    w.basis += "; and the probe chain: " + chain->basis;
  }
  return w;
}

std::optional<WhatIf> lock_free(const KernelAnalysis& a, const KernelProfile& p, const Rules& r,
                                const TimeSplit& t) {
  const L2Inputs& in = a.l2.inputs;
  if (!looks_like_spin_lock(a, p, r)) return std::nullopt;
  // The fix's native atomics at the lock's address: at least one per acquisition (the releases,
  // when they are atomics, else one per update), at most one per useful update.
  const double releases = non_cas_requests(in);
  const double most = std::max(p.useful_updates.value_or(0.0), releases);
  const double fewest = releases > 0 ? std::min(releases, most) : most;
  // The native atomics go where the locked words were: one address at its calibrated one-address
  // S; many lock words at the S of the slices' present basis (their spread, or hot slice).
  const bool one_lock = a.l2.basis == L2ServiceBasis::kHotAddress;
  const double cycles = one_lock ? a.l2.one_address_cycles : a.l2.service_cycles;
  if (!(cycles > 0)) return std::nullopt;  // no calibrated S: no prediction (not an L2 time of 0)
  // Where the native atomics land: one lock's address keeps its share. Over many lock words the
  // waiting warps spin hardest on the hottest locks, so the spin traffic's hottest share
  // overstates the updates' (measured: 34.1% spinning against 1.6% lock-free, held-out
  // chain_lock_counts); no counter gives the releases' own share, so it lies between the even
  // spread (high end) and the spin traffic's (low end).
  const double best_share = one_lock ? in.hottest_share : std::min(in.hottest_share, 1.0 / std::max(1, in.slices));
  WhatIf w = predicted(
      t, WhatIfId::kLockFree,
      fmt::format("lock-free: replace the CAS spin lock by native atomics: L2 requests from {:.3g} to "
                     "{:.3g}-{:.3g}", in.requests, fewest, most),
      fewest, fewest * best_share, cycles, 0,
      fmt::format("{:.3g} CAS requests per update spin on {}; high: one native atomic per lock "
                  "release ({:.3g} non-CAS atomics), low: one per useful update ({:.3g}); each at the "
                  "calibrated {} S {:.2f} L2 cycles, the hottest slice's share {}",
                  in.cas_requests / std::max(1.0, p.useful_updates.value_or(releases)),
                  one_lock ? "one address" : "the lock words", releases, most, one_lock ? "one-address" : "present basis's",
                  cycles,
                  one_lock ? fmt::format("{:.2f} of them", in.hottest_share)
                           : fmt::format("from the even spread {:.3f} (high) to the spin traffic's {:.3f} (low: "
                                         "the waiting piles up on the hottest locks)", best_share, in.hottest_share)));
  w.least_change_time_ns = time_with(t, most * in.hottest_share, cycles);
  return w;
}

std::optional<WhatIf> aggregate_hot_lanes(const KernelAnalysis& a, const KernelProfile& p, const TimeSplit& t) {
  const L2Inputs& in = a.l2.inputs;
  if (a.l2.basis == L2ServiceBasis::kHotAddress || in.slices <= 1 || !in.warp_instructions ||
      *in.warp_instructions <= 0 || in.requests <= 0)
    return std::nullopt;
  // The hot words' requests: the hottest slice's excess over the mean slice.
  const double hot = in.requests_hottest_slice - in.requests / in.slices;
  if (hot <= 0) return std::nullopt;
  const double lanes = std::clamp(p.useful_updates.value_or(32.0 * *in.warp_instructions) / *in.warp_instructions,
                                  1.0, 32.0);
  // Hot lanes per warp instruction if they fall at random (Poisson): one request per instruction
  // that has any, (1 - e^-l) / l per lane; packed into whole warps: 1 / lanes per lane.
  const double per_instruction = hot / in.requests * lanes;
  // Low end: on a hot slice (few words) the excess is the hot words' and their lanes fall at
  // random; on spread traffic the excess may be many words' imbalance, so none is known to merge.
  const bool few_words = a.l2.basis == L2ServiceBasis::kHotSlice;
  const double random_kept =
      !few_words ? 1.0 : per_instruction > 0 ? (1.0 - std::exp(-per_instruction)) / per_instruction : 1.0;
  const double cycles = bound_cycles_per_request(a, t);
  WhatIf w = predicted(
      t, WhatIfId::kAggregateHotLanes,
      fmt::format("aggregate same-address lanes in the warp (__match_any_sync): hottest-slice requests "
                     "from {:.3g} to {:.3g}-{:.3g}", in.requests_hottest_slice,
                     in.requests_hottest_slice - hot * (1.0 - 1.0 / lanes),
                     in.requests_hottest_slice - hot * (1.0 - random_kept)),
      in.requests - hot * (1.0 - 1.0 / lanes), in.requests_hottest_slice - hot * (1.0 - 1.0 / lanes), cycles, 0,
      fmt::format("the hottest slice's {:.3g} requests above the mean slice are its hot words' ({:.2f} lanes "
                  "of a {:.1f}-lane warp instruction); high: they come packed in whole warps (one request "
                  "per warp), low: {}; the match's own cost left out",
                  hot, per_instruction, lanes,
                  few_words ? "at random lanes (one request per instruction that has any)"
                            : "none merged (spread traffic: the excess may be many words' imbalance)"));
  w.least_change_time_ns = time_with(t, in.requests_hottest_slice - hot * (1.0 - random_kept), cycles);
  return w;
}

}  // namespace atomq::model::detail
