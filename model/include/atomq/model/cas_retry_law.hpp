// The CAS retry law (docs/model.md, "The CAS retry law"): a word that m lanes update through a
// CAS loop serves one update per round trip L while they contend, and every attempt, failed or
// not, costs the slice the one-address CAS service time S:
//     time per update t(m) = max(L, a(m) * S),   a(m) = attempts per update with m lanes,
// both measured by the table's CAS retry sweep (calibration/src/cas_retry_sweep.cpp). So a
// loop's time is max(updates * L, attempts * S) per word. Several contended words share the
// slices as the L2 law sweep's hot lines do: the hottest slice serves the attempts of all the
// words it holds (L2Law::share_at_lines), at the multi-word series' round trip. Plain C++, a pure
// function of the table's L2 section.
#pragma once

#include <string>
#include <vector>

#include "atomq/calibration/l2_section.hpp"

namespace atomq::model {

// One sweep point against the law: its time predicted from its own attempts and updates.
struct CasRetryResidual {
  int warps = 0, active_lanes = 0, addresses = 0;
  double lanes_per_word = 0;      // lanes competing for one word
  double words_at_hottest_slice = 1;  // of the point's words, those the hottest slice holds
  double attempts_per_update = 0;
  double measured_ns = 0, predicted_ns = 0;
  double relative() const { return measured_ns > 0 ? (predicted_ns - measured_ns) / measured_ns : 0.0; }
};

struct CasRetryLaw {
  bool fitted = false;
  std::string not_fitted_reason;
  double l2_clock_mhz = 0;
  double service_cycles = 0;        // S: the saturated one-address atom.cas.u32 cell (L2 cycles per request)
  double round_trip_cycles = 0;     // L: per update on the one-word series while latency-bound
  double far_round_trip_cycles = 0; // L on the multi-word series' words, one warp per word (0: no such point)
  // a(m) on the one-word series: lanes per word, attempts per update (median per lane count).
  std::vector<std::pair<double, double>> attempts_by_lanes;
  std::vector<CasRetryResidual> one_word, several_words;
  // How a(m) grows with the lanes per word where several words share the slices: the log-log
  // slope from the fewest to the most lanes of each word count's series, the flattest of them
  // (0: no such series). The one-word curve is steeper.
  double several_words_slope = 0;
  double median_abs_residual = 0;   // over one_word
  double max_abs_residual = 0;
  double several_words_median_abs_residual = 0, several_words_max_abs_residual = 0;

  // a(m): log-log interpolation of the sweep, 1 at one lane, the last slope beyond the sweep.
  double attempts_per_update(double lanes) const;
  // The lanes per word at which a(m) reads `attempts` (a(m) rises with m): the contention a
  // loop's measured attempts stand for; 1 at one attempt or fewer.
  double lanes_at_attempts(double attempts) const;
  // t(m) = max(L, a(m) S) in L2 cycles, with the given round trip.
  double cycles_per_update(double lanes, double round_trip) const;
};

// The law of the section's CAS retry sweep; fitted false (with why) when the table has none.
CasRetryLaw fit_cas_retry_law(const calibration::L2Section& section);

}  // namespace atomq::model
