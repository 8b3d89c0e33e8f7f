// The L2 queue's what-ifs (l2_what_if.cpp): each a predicted kernel time with its basis in
// words. Private to the model library.
#pragma once

#include <optional>
#include <string>
#include <vector>

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

std::optional<TimeSplit> time_split(const KernelAnalysis& a, const KernelProfile& profile);

// T' = max(non-atomic work, shared-unit time) + hottest x service cycles at the L2 clock.
WhatIf predicted(const TimeSplit& t, WhatIfId id, std::string change, double requests, double hottest,
                 double service_cycles, double shared_ns, const std::string& basis);

// A global CAS spin lock: CAS-heavy requests on one hot address, many CAS per update.
bool looks_like_spin_lock(const KernelAnalysis& a, const KernelProfile& profile, const Rules& r);

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
std::optional<WhatIf> load_before_cas(const KernelAnalysis& a, const KernelProfile& profile, const Rules& r,
                                      const TimeSplit& t, const RemovableCas& removable,
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
