// The CAS retry law's fit (cas_retry_law.hpp): S from the L2 table's one-address CAS cell, L
// and a(m) from the CAS retry sweep, and every sweep point's time predicted back from its own
// attempts and updates.
#include "atomq/model/cas_retry_law.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "atomq/model/l2_law.hpp"
#include "log_interpolation.hpp"

namespace atomq::model {

namespace {

using calibration::CasRetryPoint;

// A point is latency-bound when its attempts occupy the slice under a quarter of its time.
constexpr double kLatencyBoundShare = 0.25;

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double lanes_per_word(const CasRetryPoint& p) {
  return std::ceil(static_cast<double>(p.warps) / p.addresses) * p.active_lanes;
}

// Per word: the sweep spreads warps evenly over its words, which the slices serve side by side.
double ns_per_update_per_word(const CasRetryPoint& p) { return p.duration_ns / p.updates * p.addresses; }

double latency_bound_round_trip(const std::vector<CasRetryPoint>& points, double s_ns) {
  std::vector<double> t;
  for (const CasRetryPoint& p : points)
    if (p.attempts / p.updates * s_ns < kLatencyBoundShare * ns_per_update_per_word(p)) t.push_back(ns_per_update_per_word(p));
  return median(t);
}

// Per word count, the log-log slope of attempts per update against lanes per word between its
// fewest and most lanes; the smallest over the word counts with two or more lane counts.
double flattest_several_words_slope(const std::vector<CasRetryResidual>& points) {
  std::map<int, std::pair<const CasRetryResidual*, const CasRetryResidual*>> ends;
  for (const CasRetryResidual& p : points) {
    auto& [lo, hi] = ends[p.addresses];
    if (!lo || p.lanes_per_word < lo->lanes_per_word) lo = &p;
    if (!hi || p.lanes_per_word > hi->lanes_per_word) hi = &p;
  }
  double flattest = 0;
  bool any = false;
  for (const auto& [words, e] : ends) {
    const auto [lo, hi] = e;
    if (!(hi->lanes_per_word > lo->lanes_per_word) || !(lo->attempts_per_update > 0)) continue;
    const double slope = std::log(hi->attempts_per_update / lo->attempts_per_update) /
                         std::log(hi->lanes_per_word / lo->lanes_per_word);
    flattest = any ? std::min(flattest, slope) : slope;
    any = true;
  }
  return std::max(0.0, flattest);
}

}  // namespace

double CasRetryLaw::attempts_per_update(double lanes) const {
  if (attempts_by_lanes.empty() || lanes <= 1.0) return 1.0;
  const auto& v = attempts_by_lanes;
  auto log_at = [](const std::pair<double, double>& a, const std::pair<double, double>& b, double x) {
    return detail::log_log_between(x, a.first, b.first, a.second, b.second);
  };
  if (lanes <= v.front().first) return log_at({1.0, 1.0}, v.front(), lanes);
  for (size_t i = 1; i < v.size(); ++i)
    if (lanes <= v[i].first) return log_at(v[i - 1], v[i], lanes);
  return v.size() >= 2 ? log_at(v[v.size() - 2], v.back(), lanes) : v.back().second;
}

double CasRetryLaw::lanes_at_attempts(double attempts) const {
  if (!(attempts > 1.0) || attempts_by_lanes.empty()) return 1.0;
  double lo = 1.0, hi = 2.0;
  while (attempts_per_update(hi) < attempts && hi < 1e9) lo = hi, hi *= 2.0;
  for (int i = 0; i < 60; ++i) {  // bisection in log(m): a(m) is monotone on the sweep's points
    const double mid = std::sqrt(lo * hi);
    (attempts_per_update(mid) < attempts ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

double CasRetryLaw::cycles_per_update(double lanes, double round_trip) const {
  return std::max(round_trip, attempts_per_update(lanes) * service_cycles);
}

CasRetryLaw fit_cas_retry_law(const calibration::L2Section& section) {
  CasRetryLaw law;
  const calibration::L2Cell* cas = section.saturated(GlobalAtomicOp::kAtomCasU32, AddressSpread::kOneAddress);
  if (section.cas_retry.empty() || cas == nullptr || !(section.l2_clock_mhz > 0)) {
    law.not_fitted_reason = "the table has no CAS retry sweep (calibrated before 2026-12-03): run atomq calibrate";
    return law;
  }
  law.l2_clock_mhz = section.l2_clock_mhz;
  law.service_cycles = cas->cycles_per_request;
  const double ns_per_cycle = 1e3 / section.l2_clock_mhz, s_ns = law.service_cycles * ns_per_cycle;
  std::vector<CasRetryPoint> one, several;
  for (const CasRetryPoint& p : section.cas_retry) (p.addresses == 1 ? one : several).push_back(p);
  law.round_trip_cycles = latency_bound_round_trip(one, s_ns) / ns_per_cycle;
  // The other words' round trip: the multi-word points where one warp has its word to itself.
  std::vector<CasRetryPoint> alone;
  for (const CasRetryPoint& p : several)
    if (lanes_per_word(p) <= p.active_lanes) alone.push_back(p);
  law.far_round_trip_cycles = latency_bound_round_trip(alone, s_ns) / ns_per_cycle;
  if (!(law.round_trip_cycles > 0)) {
    law.not_fitted_reason = "no latency-bound point in the table's one-word CAS retry sweep";
    return law;
  }
  std::map<double, std::vector<double>> by_lanes;
  for (const CasRetryPoint& p : one) by_lanes[lanes_per_word(p)].push_back(p.attempts / p.updates);
  for (const auto& [lanes, a] : by_lanes) law.attempts_by_lanes.emplace_back(lanes, median(a));
  // The sweep's words lie one per line, consecutive lines, as the L2 law sweep's hot lines: the
  // hottest slice holds the share of them its share curve measured (one where it has none).
  const std::shared_ptr<const L2Law> l2 = l2_law_of(section);
  auto words_at_hottest = [&](double words) {
    const double share = l2->one_line_share > 0 ? l2->share_at_lines(words) / l2->one_line_share : 0.0;
    return std::max(1.0, share * words);
  };
  const double far = law.far_round_trip_cycles > 0 ? law.far_round_trip_cycles : law.round_trip_cycles;
  auto residual = [&](const CasRetryPoint& p) {
    const double per_word = 1.0 / p.addresses;
    const bool one_word = p.addresses == 1;
    CasRetryResidual r{p.warps, p.active_lanes, p.addresses, lanes_per_word(p),
                       one_word ? 1.0 : words_at_hottest(p.addresses), p.attempts / p.updates, p.duration_ns, 0.0};
    const double round_trip = one_word ? law.round_trip_cycles : far;
    r.predicted_ns = std::max(p.updates * per_word * round_trip * ns_per_cycle,
                              p.attempts * per_word * r.words_at_hottest_slice * s_ns);
    return r;
  };
  auto fit_of = [&](const std::vector<CasRetryPoint>& points, std::vector<CasRetryResidual>& rows, double& median_abs,
                    double& max_abs) {
    std::vector<double> errors;
    for (const CasRetryPoint& p : points) {
      rows.push_back(residual(p));
      errors.push_back(std::fabs(rows.back().relative()));
    }
    median_abs = median(errors);
    max_abs = errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end());
  };
  fit_of(one, law.one_word, law.median_abs_residual, law.max_abs_residual);
  fit_of(several, law.several_words, law.several_words_median_abs_residual, law.several_words_max_abs_residual);
  law.several_words_slope = flattest_several_words_slope(law.several_words);
  law.fitted = true;
  return law;
}

}  // namespace atomq::model
