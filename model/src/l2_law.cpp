// The L2 law fitted on a table's L2 cells (l2_law.hpp, docs/model.md "The L2 law").
#include "atomq/model/l2_law.hpp"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <functional>
#include <mutex>
#include <tuple>

#include "log_interpolation.hpp"

namespace atomq::model {

L2LawInputBound input_bound(const std::vector<L2LawResidual>& cells) {
  // Inputs equal to the precision the analyzer reads them (sectors to 0.01, chains to 0.1).
  std::map<std::tuple<int, long, long>, std::vector<const L2LawResidual*>> groups;
  for (const L2LawResidual& c : cells)
    if (c.measured > 0)
      groups[{static_cast<int>(c.op), std::lround(c.sectors * 100), std::lround(c.chains * 10)}].push_back(&c);
  L2LawInputBound b;
  std::vector<double> errors;
  for (const auto& [key, group] : groups) {
    const auto by_cycles = [](const L2LawResidual* x, const L2LawResidual* y) { return x->measured < y->measured; };
    const auto [lo, hi] = std::minmax_element(group.begin(), group.end(), by_cycles);
    // The one value whose relative error is the same on the group's fastest and slowest cell.
    const double best = 2 * (*lo)->measured * (*hi)->measured / ((*lo)->measured + (*hi)->measured);
    for (const L2LawResidual* c : group) errors.push_back(std::abs(best / c->measured - 1));
    const double worst = ((*hi)->measured - (*lo)->measured) / ((*hi)->measured + (*lo)->measured);
    if (worst > b.max_abs_residual) {
      b.max_abs_residual = worst;
      b.op = (*lo)->op;
      b.sectors = (*lo)->sectors;
      b.chains = (*lo)->chains;
      b.fastest_pattern = (*lo)->pattern;
      b.slowest_pattern = (*hi)->pattern;
      b.fastest_cycles = (*lo)->measured;
      b.slowest_cycles = (*hi)->measured;
    }
  }
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    b.median_abs_residual = errors[errors.size() / 2];
  }
  return b;
}

namespace {

using calibration::L2Cell;
using calibration::L2Section;

constexpr int kLineBytes = 128;
constexpr size_t kCachedLaws = 8;

// One saturated observation: S measured at (s, m).
struct Observation {
  GlobalAtomicOp op;
  std::string pattern;
  double sectors, chains, cycles;
};

// A request occupies the slice's pipeline for the longer of its fixed cost and its sectors' cost;
// the chains of same-address updates overlap with that pipeline to the degree p says.
double law_cycles(double a, double b, double lambda, double p, double s, double m) {
  return std::pow(std::pow(std::max(a, b * s), p) + std::pow(lambda / m, p), 1.0 / p);
}

// Hot lines of a cell's pattern (the grid's distinct lines).
double lines_of(const L2Cell& c) {
  const double word_bytes = traits(c.op).word_bytes;
  if (c.hot_addresses > 0)
    return c.packed ? std::ceil(c.hot_addresses * word_bytes / kLineBytes) : c.hot_addresses;
  switch (c.spread) {
    case AddressSpread::kOneAddress:
    case AddressSpread::kOneLine: return 1;
    case AddressSpread::kManyLines: return c.addresses;  // one word per line
    default: return std::max(1.0, std::ceil(c.addresses * word_bytes / kLineBytes));
  }
}

// The share of one hot line at its slice (below 1: the counters see a request at more than one
// slice), from the op's one-address cell, else its one-line law cell.
double one_line_share(const L2Section& s, GlobalAtomicOp op) {
  if (const L2Cell* c = s.saturated(op, AddressSpread::kOneAddress)) return c->hottest_slice_share;
  for (const L2Cell& c : s.law_cells)
    if (c.op == op && c.hot_addresses == 1) return c.hottest_slice_share;
  return 1.0;
}

int most_warps(const L2Section& s) { return s.warps_per_sm.empty() ? 0 : s.warps_per_sm.back(); }

std::vector<Observation> observations(const L2Section& s) {
  std::vector<Observation> obs;
  const int most = most_warps(s);
  auto add = [&](const L2Cell& c, std::string pattern) {
    if (!(c.cycles_per_request > 0 && c.sectors_per_request > 0)) return;
    const double chains = std::max(1.0, c.hottest_slice_share * lines_of(c) / one_line_share(s, c.op));
    obs.push_back({c.op, std::move(pattern), c.sectors_per_request, chains, c.cycles_per_request});
  };
  for (const L2Cell& c : s.cells)
    if (c.warps_per_sm == most) add(c, "spread " + enum_name(c.spread));
  for (const L2Cell& c : s.law_cells)
    if (!c.dependent && c.warps_per_sm == most)
      add(c, fmt::format("H={} {} lanes={}", c.hot_addresses, c.packed ? "packed" : "per-line", c.active_lanes));
  return obs;
}

// Gauss-Newton on (log a, log b, log lambda) for one op at exponent p, minimizing squared log
// residuals.
L2LawOpTerms fit_op(GlobalAtomicOp op, const std::vector<const Observation*>& obs, double p) {
  Eigen::Vector3d x(0.0, 0.0, 0.0);  // log a, log b, log lambda
  for (int iteration = 0; iteration < 100; ++iteration) {
    Eigen::MatrixXd J(obs.size(), 3);
    Eigen::VectorXd r(obs.size());
    for (size_t i = 0; i < obs.size(); ++i) {
      const Observation& o = *obs[i];
      const double a = std::exp(x[0]), bs = std::exp(x[1]) * o.sectors;
      const double pipeline = std::pow(std::max(a, bs), p), chain = std::pow(std::exp(x[2]) / o.chains, p);
      const double total = pipeline + chain;
      const auto row = static_cast<Eigen::Index>(i);
      J(row, 0) = a >= bs ? pipeline / total : 0.0;
      J(row, 1) = a >= bs ? 0.0 : pipeline / total;
      J(row, 2) = chain / total;
      r[row] = std::log(total) / p - std::log(o.cycles);
    }
    const Eigen::Matrix3d normal = J.transpose() * J + 1e-6 * Eigen::Matrix3d::Identity();
    Eigen::Vector3d step = normal.ldlt().solve(J.transpose() * r);
    step = step.cwiseMax(-2.0).cwiseMin(2.0);  // damped: a term can vanish (exp(-large))
    x -= step;
    if (step.norm() < 1e-10) break;
  }
  return {op, std::exp(x[0]), std::exp(x[1]), std::exp(x[2]), static_cast<int>(obs.size())};
}

std::vector<L2SharePoint> share_curve(const L2Section& s) {
  std::map<int, std::vector<L2SharePoint>> by_lines;
  const int most = most_warps(s);
  for (const L2Cell& c : s.law_cells)
    if (!c.dependent && !c.packed && c.active_lanes == 32 && c.warps_per_sm == most)
      by_lines[c.hot_addresses].push_back(
          {c.hottest_slice_share / one_line_share(s, c.op), c.hottest_slice_share * c.hot_addresses / one_line_share(s, c.op)});
  std::vector<L2SharePoint> curve;
  for (auto& [lines, points] : by_lines) {
    std::vector<double> shares, chains;
    for (const L2SharePoint& q : points) shares.push_back(q.share), chains.push_back(std::max(1.0, q.chains));
    std::sort(shares.begin(), shares.end());
    std::sort(chains.begin(), chains.end());
    curve.push_back({shares[shares.size() / 2], chains[chains.size() / 2], static_cast<double>(lines)});
  }
  std::sort(curve.begin(), curve.end(), [](const L2SharePoint& a, const L2SharePoint& b) { return a.share > b.share; });
  return curve;
}

void fit_latency(const L2Section& s, L2Law& law) {
  std::vector<const L2Cell*> chains;
  for (const L2Cell& c : s.law_cells)
    if (c.dependent && c.duration_ns > 0 && c.requests > 0 && c.requests_per_instruction > 0) chains.push_back(&c);
  if (chains.empty()) return;
  // Per thread, one atomic in flight: the time of one is in flight x time / atomics.
  auto latency = [](const L2Cell& c) {
    const double atomics = c.requests / c.requests_per_instruction * c.active_lanes;
    return c.requests_in_flight * c.duration_ns / atomics;
  };
  for (const L2Cell* c : chains)
    law.round_trip.push_back({c->op, c->active_lanes, c->warps_per_sm,
                              static_cast<double>(c->warps_per_sm) * c->active_lanes, latency(*c)});
  std::sort(law.round_trip.begin(), law.round_trip.end(), [](const L2RoundTripPoint& a, const L2RoundTripPoint& b) {
    return a.in_flight_per_sm < b.in_flight_per_sm;
  });
  // Alone and loaded: the one-lane chains at the fewest and the most warps.
  std::vector<const L2Cell*> one_lane;
  for (const L2Cell* c : chains)
    if (c->active_lanes == 1) one_lane.push_back(c);
  if (one_lane.empty()) return;
  const auto [fewest_cell, most_cell] = std::minmax_element(
      one_lane.begin(), one_lane.end(), [](const L2Cell* a, const L2Cell* b) { return a->warps_per_sm < b->warps_per_sm; });
  const int fewest = (*fewest_cell)->warps_per_sm, most = (*most_cell)->warps_per_sm;
  std::vector<double> alone, loaded;
  for (const L2Cell* c : one_lane) {
    if (c->warps_per_sm == fewest) alone.push_back(latency(*c));
    if (c->warps_per_sm == most) loaded.push_back(latency(*c));
  }
  std::sort(alone.begin(), alone.end());
  std::sort(loaded.begin(), loaded.end());
  law.latency_alone_ns = alone[alone.size() / 2];
  law.latency_loaded_ns = loaded[loaded.size() / 2];
  law.latency_loaded_in_flight_per_sm = most;
}

void residual_statistics(L2Law& law) {
  std::vector<double> abs;
  for (const L2LawResidual& r : law.residuals) abs.push_back(std::fabs(r.relative()));
  std::sort(abs.begin(), abs.end());
  law.median_abs_residual = abs.empty() ? 0 : abs[abs.size() / 2];
  law.max_abs_residual = abs.empty() ? 0 : abs.back();
  law.input_bound = input_bound(law.residuals);
}

}  // namespace

const L2LawOpTerms* L2Law::terms(GlobalAtomicOp op) const {
  for (const L2LawOpTerms& t : ops)
    if (t.op == op) return &t;
  return nullptr;
}

std::optional<double> L2Law::service_cycles(GlobalAtomicOp op, double sectors, double chains) const {
  const L2LawOpTerms* t = terms(op);
  if (!fitted || !t || !(sectors > 0)) return std::nullopt;
  return law_cycles(t->request_cycles, t->sector_cycles, t->chain_cycles, exponent, sectors, std::max(1.0, chains));
}

double L2Law::chains_at_share(double share) const {
  if (share_curve.empty() || !(one_line_share > 0)) return 1.0;
  const double normalized = share / one_line_share;
  if (normalized >= share_curve.front().share) return std::max(1.0, share_curve.front().chains);
  for (size_t i = 1; i < share_curve.size(); ++i) {
    const L2SharePoint& hi = share_curve[i - 1];
    const L2SharePoint& lo = share_curve[i];
    if (normalized >= lo.share && hi.share > lo.share) {
      return std::max(1.0, detail::log_log_between(normalized, hi.share, lo.share, hi.chains, lo.chains));
    }
  }
  return std::max(1.0, share_curve.back().chains);
}

namespace {

// The curve by line count (ascending), shares normalized to one line's.
std::vector<L2SharePoint> by_lines(const std::vector<L2SharePoint>& curve) {
  std::vector<L2SharePoint> v = curve;
  std::sort(v.begin(), v.end(), [](const L2SharePoint& a, const L2SharePoint& b) { return a.lines < b.lines; });
  return v;
}

}  // namespace

double L2Law::share_at_lines(double lines) const {
  const std::vector<L2SharePoint> v = by_lines(share_curve);
  if (v.empty() || !(one_line_share > 0) || !(v.front().lines > 0)) return 0.0;
  if (lines <= v.front().lines) return v.front().share * one_line_share;
  for (size_t i = 1; i < v.size(); ++i)
    if (lines <= v[i].lines && v[i].lines > v[i - 1].lines)
      return detail::log_log_between(lines, v[i - 1].lines, v[i].lines, v[i - 1].share, v[i].share) * one_line_share;
  return v.back().share * one_line_share;
}

double L2Law::lines_at_share(double share) const {
  const std::vector<L2SharePoint> v = by_lines(share_curve);
  if (v.empty() || !(one_line_share > 0) || !(share > 0)) return 0.0;
  const double normalized = share / one_line_share;
  if (normalized >= v.front().share) return v.front().lines;
  for (size_t i = 1; i < v.size(); ++i)
    if (normalized >= v[i].share && v[i - 1].share > v[i].share)
      return detail::log_log_between(normalized, v[i - 1].share, v[i].share, v[i - 1].lines, v[i].lines);
  return v.back().lines;
}

L2Law fit_l2_law(const L2Section& s) {
  L2Law law;
  if (s.law_cells.empty()) {
    law.not_fitted_reason = "the table has no L2 law cells (calibrated before the law sweep): calibrate again";
    return law;
  }
  const std::vector<Observation> obs = observations(s);
  std::map<GlobalAtomicOp, std::vector<const Observation*>> by_op;
  for (const Observation& o : obs) by_op[o.op].push_back(&o);
  double best = INFINITY;
  for (double p : {1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0}) {
    L2Law trial;
    trial.fitted = true;
    trial.exponent = p;
    for (auto& [op, list] : by_op) {
      if (list.size() < 3) continue;
      trial.ops.push_back(fit_op(op, list, p));
    }
    for (const Observation& o : obs)
      if (const L2LawOpTerms* t = trial.terms(o.op))
        trial.residuals.push_back({o.op, o.pattern, o.sectors, o.chains, o.cycles,
                                   law_cycles(t->request_cycles, t->sector_cycles, t->chain_cycles, p, o.sectors, o.chains)});
    residual_statistics(trial);
    const double score = trial.median_abs_residual + 0.25 * trial.max_abs_residual;
    if (score < best) best = score, law = std::move(trial);
  }
  if (law.ops.empty()) {
    law.fitted = false;
    law.not_fitted_reason = "the table's L2 law cells have no sectors per request";
    return law;
  }
  law.share_curve = share_curve(s);
  law.one_line_share = one_line_share(s, GlobalAtomicOp::kRedAddU32);
  fit_latency(s, law);
  return law;
}

// A digest of what the fit reads, so that a cached law never outlives its cells.
static size_t section_digest(const L2Section& s) {
  size_t h = std::hash<size_t>{}(s.cells.size() * 1000003 + s.law_cells.size());
  auto mix = [&h](double v) { h ^= std::hash<double>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const auto* list : {&s.cells, &s.law_cells})
    for (const L2Cell& c : *list) {
      // Every field the fit reads.
      for (double v : {static_cast<double>(c.op), static_cast<double>(c.spread), static_cast<double>(c.warps_per_sm),
                       static_cast<double>(c.addresses), c.cycles_per_request, c.hottest_slice_share,
                       c.sectors_per_request, c.requests_per_instruction, static_cast<double>(c.hot_addresses),
                       c.packed ? 1.0 : 0.0, static_cast<double>(c.active_lanes), c.dependent ? 1.0 : 0.0,
                       c.duration_ns, c.requests, c.requests_in_flight})
        mix(v);
    }
  return h;
}

std::shared_ptr<const L2Law> l2_law_of(const L2Section& section) {
  static std::mutex mutex;
  static std::map<size_t, std::shared_ptr<const L2Law>> fitted;
  const size_t key = section_digest(section);
  std::lock_guard<std::mutex> lock(mutex);
  auto found = fitted.find(key);
  if (found == fitted.end()) {
    // A process uses a table or two; tables read by the thousand (the fuzzers) must not pile up.
    if (fitted.size() >= kCachedLaws) fitted.clear();
    found = fitted.emplace(key, std::make_shared<const L2Law>(fit_l2_law(section))).first;
  }
  return found->second;
}

}  // namespace atomq::model
