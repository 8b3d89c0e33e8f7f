// The L2 queue's what-ifs (l2_what_if.cpp): each a predicted kernel time with its basis in
// words. Private to the model library.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "atomq/calibration/load_section.hpp"
#include "atomq/model/analysis.hpp"

namespace atomq::model::detail {

// The kernel's time split into the non-atomic work, which stays, and the L2-bound time at the
// hottest slice, which a change scales.
struct TimeSplit {
  double time_ns = 0;
  double ns_per_l2_cycle = 0;
  double l2_busy_ns = 0;  // the hottest slice's L2-bound time (at most the duration)
  double other_ns = 0;    // the non-atomic work
  std::string other_basis;
};

std::optional<TimeSplit> time_split(const KernelAnalysis& a, const KernelProfile& profile, const Rules& r);

// T' = max(non-atomic work, shared-unit time) + hottest x service cycles at the L2 clock.
WhatIf predicted(const TimeSplit& t, WhatIfId id, std::string change, double requests, double hottest,
                 double service_cycles, double shared_ns, const std::string& basis);

// A global CAS spin lock: CAS-heavy requests, many CAS per update, on one hot address or on
// many lock words whose release (an atomic exchange) shows.
bool looks_like_spin_lock(const KernelAnalysis& a, const KernelProfile& profile, const Rules& r);

// Every global atomic already issued by one lane per warp (the SASS hint): nothing to merge.
inline bool already_warp_aggregated(const KernelProfile& p) { return p.global_atomic_warp_aggregated.value_or(false); }

// l2_cas_what_if.cpp: probe with a load before the CAS; replace a spin lock by native atomics;
// aggregate the lanes of a warp that hit the hot slice's words.
// The share of the CASes a probe can skip: all of a probe's; of a global CAS loop's, those of the
// updates that leave the word as it is (the retry law says how many on one word; on several it
// cannot, so the share spans none to all).
struct RemovableCas {
  double most = 1.0;   // the what-if (high end)
  double least = 1.0;  // the least change (low end)
  std::string basis;   // empty for a probe
};
// cas_probe_what_if.cpp: a CAS probe chain's round trips when its CASes become loads, as the
// kernel time's fraction at each end (the warps' wait on the chain scales, the rest stays).
struct ProbeChainChange {
  double round_trip_share = 0;    // the chain's share of the SMs' time (L2LatencyEvaluation's U)
  double cas_share = 0;           // CAS requests / returning (ATOM) requests
  double cas_round_trip_ns = 0, load_round_trip_ns = 0;
  double claims_per_step = 0;     // most CASes left per probe step
  double step_high = 1;           // a step's wait after / before: the load's round trip, no CAS
  double step_low = 1;            // the load at the CAS's round trip, then the most claims
  std::string basis;
  // The kernel time after the change: `rest_ns` (what the chain does not wait on) plus the
  // chain's wait (its share of `time_ns`) with each CAS step changed.
  double time_ns(double time_ns, double rest_ns, bool high) const {
    const double step = high ? step_high : step_low;
    return rest_ns + time_ns * round_trip_share * ((1.0 - cas_share) + cas_share * step);
  }
};
// nullopt with the probe chain term off (rules' terms_off).
std::optional<ProbeChainChange> probe_chain_with_loads(const KernelAnalysis& a, const KernelProfile& profile,
                                                       const calibration::LoadSection* loads, const Rules& r);
// The chain's change as a what-if with its own interval (kernels bound by the round trips, or by
// nothing the L2 queue names); nullopt without a chain or a kernel duration.
std::optional<WhatIf> load_before_cas_on_chain(const KernelAnalysis& a, const KernelProfile& profile,
                                               const calibration::LoadSection* loads, const Rules& r);

// The slice's what-if; with a chain, its ends are no faster than the chain's (both bound the time).
std::optional<WhatIf> load_before_cas(const KernelAnalysis& a, const KernelProfile& profile, const Rules& r,
                                      const TimeSplit& t, const RemovableCas& removable,
                                      const std::optional<ProbeChainChange>& chain,
                                      std::vector<std::string>& details);
std::optional<WhatIf> lock_free(const KernelAnalysis& a, const KernelProfile& profile, const Rules& r,
                                const TimeSplit& t);
std::optional<WhatIf> aggregate_hot_lanes(const KernelAnalysis& a, const KernelProfile& profile,
                                          const TimeSplit& t);

// The kernel already privatizes: it has shared atomics and merges few L2 requests per block.
bool looks_privatized(const KernelAnalysis& a, const KernelProfile& profile, const Rules& r);

// The what-ifs that fit the L2 queue's cause; why one is left out is added to details.
std::vector<WhatIf> l2_what_ifs(const KernelAnalysis& a, const KernelProfile& profile,
                                const ServiceTimeModel& m, const Rules& r, bool privatized,
                                std::vector<std::string>& details);

}  // namespace atomq::model::detail
