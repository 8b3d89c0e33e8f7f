#include "atomq/model/service_time.hpp"
#include "atomq/model/table_selection.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <utility>

namespace atomq::model {

using calibration::OpVariant;
using calibration::Pattern;
using calibration::ServiceTable;

namespace {

// Two neighbouring grid indices and the weight of the upper one, in the axis' own space.
struct Bracket {
  std::size_t lo = 0, hi = 0;
  double t = 0;
  double used = 0;  // the coordinate after clamping
};

Bracket bracket(const std::vector<double>& axis, double x, bool log_axis, const char* name,
                std::vector<ClampNote>& clamped) {
  Bracket b;
  if (axis.empty()) return b;
  double used = x;
  if (!(x >= axis.front())) used = axis.front();  // also catches NaN
  if (x > axis.back()) used = axis.back();
  if (used != x) clamped.push_back(ClampNote{name, x, used});
  b.used = used;
  auto upper = std::lower_bound(axis.begin(), axis.end(), used);
  if (upper == axis.end()) upper = std::prev(axis.end());
  b.hi = static_cast<std::size_t>(upper - axis.begin());
  if (*upper == used || b.hi == 0) {
    b.lo = b.hi;
    return b;
  }
  b.lo = b.hi - 1;
  const double a0 = axis[b.lo], a1 = axis[b.hi];
  b.t = log_axis ? std::log(used / a0) / std::log(a1 / a0) : (used - a0) / (a1 - a0);
  return b;
}

template <typename T>
std::vector<double> sorted_axis(const std::vector<T>& values) {
  std::vector<double> axis(values.begin(), values.end());
  std::sort(axis.begin(), axis.end());
  axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
  return axis;
}

double lerp(double a, double b, double t) { return a + (b - a) * t; }

}  // namespace

ServiceTimeModel::ServiceTimeModel(ServiceTable table)
    : table_(std::move(table)),
      fit_(fit_service_model(table_)),
      cas_retry_law_(fit_cas_retry_law(table_.l2)),
      n_axis_(sorted_axis(table_.axes.n)),
      e_axis_(sorted_axis(table_.axes.e)),
      c_axis_(sorted_axis(table_.axes.c)) {
  for (const calibration::Cell& c : table_.cells)
    cells_[key(c.n, c.e, c.c, c.variant, c.pattern.conflict_degree)] = c.s;
}

ServiceTimeModel::CellKey ServiceTimeModel::key(int n, int e, double c, OpVariant v,
                                                int conflict_degree) {
  return {n, e, std::llround(c * 1e6), static_cast<int>(v), conflict_degree};
}

double ServiceTimeModel::cell(int n, int e, double c, OpVariant v, int conflict_degree) const {
  auto it = cells_.find(key(n, e, c, v, conflict_degree));
  // parse_service_table guarantees a complete grid; a hand-built table might not be.
  return it == cells_.end() ? std::nan("") : it->second;
}

OpVariant ServiceTimeModel::pick_variant(OpVariant wanted, std::vector<ClampNote>& clamped) const {
  const auto& vs = table_.axes.variants;
  if (vs.empty() || std::find(vs.begin(), vs.end(), wanted) != vs.end()) return wanted;
  clamped.push_back(ClampNote{"variant", static_cast<double>(wanted),
                              static_cast<double>(vs.front())});
  return vs.front();
}

ServiceTimeEstimate ServiceTimeModel::on_pattern(double n, double e, double c, OpVariant v,
                                                 const Pattern& p) const {
  ServiceTimeEstimate out;
  const OpVariant variant = pick_variant(v, out.clamped);
  if (n_axis_.empty() || e_axis_.empty() || c_axis_.empty()) {
    out.cycles = std::nan("");  // a table without a grid: the caller reports insufficient data
    return out;
  }
  const Bracket bn = bracket(n_axis_, n, true, "n", out.clamped);
  const Bracket be = bracket(e_axis_, e, true, "e", out.clamped);
  const Bracket bc = bracket(c_axis_, c, false, "c", out.clamped);

  // c then e in linear S; n last in log S (S ~ L / n below saturation).
  auto at_n = [&](std::size_t in) {
    auto at_e = [&](std::size_t ie) {
      const int nn = static_cast<int>(n_axis_[in]), ee = static_cast<int>(e_axis_[ie]);
      return lerp(cell(nn, ee, c_axis_[bc.lo], variant, p.conflict_degree),
                  cell(nn, ee, c_axis_[bc.hi], variant, p.conflict_degree), bc.t);
    };
    return lerp(at_e(be.lo), at_e(be.hi), be.t);
  };
  const double s_lo = at_n(bn.lo), s_hi = at_n(bn.hi);
  out.cycles = (bn.lo == bn.hi || s_lo <= 0 || s_hi <= 0)
                   ? lerp(s_lo, s_hi, bn.t)
                   : std::exp(lerp(std::log(s_lo), std::log(s_hi), bn.t));
  out.pattern_below = out.pattern_above = calibration::to_string(p);
  out.k_below = out.k_above = expected_wavefronts(p, be.used, bc.used, variant);
  return out;
}

ServiceTimeEstimate ServiceTimeModel::at(double n, double e, double c, double k,
                                         OpVariant v) const {
  struct Point {
    double k, s;
    std::string pattern;
    int count;
  };
  std::vector<Point> points;
  ServiceTimeEstimate out;
  for (const Pattern& p : table_.axes.patterns) {
    ServiceTimeEstimate slice = on_pattern(n, e, c, v, p);
    if (points.empty()) out.clamped = slice.clamped;  // n, e, c clamps: same for every slice
    if (!std::isfinite(slice.cycles)) continue;
    points.push_back(Point{slice.k_below, slice.cycles, slice.pattern_below, 1});
  }
  if (points.empty()) {
    out.cycles = std::nan("");
    return out;
  }
  std::sort(points.begin(), points.end(),
            [](const Point& a, const Point& b) { return a.k < b.k; });
  // Patterns that give the same k here (e.g. distinct and conflict2 with 8 lanes) are one point.
  std::vector<Point> merged;
  for (const Point& pt : points) {
    if (!merged.empty() && std::fabs(merged.back().k - pt.k) < 1e-9) {
      Point& m = merged.back();
      m.s = (m.s * m.count + pt.s) / (m.count + 1);
      m.pattern += "|" + pt.pattern;
      ++m.count;
    } else {
      merged.push_back(pt);
    }
  }
  std::vector<double> k_axis;
  for (const Point& pt : merged) k_axis.push_back(pt.k);
  const Bracket bk = bracket(k_axis, k, false, "k", out.clamped);
  const Point& lo = merged[bk.lo];
  const Point& hi = merged[bk.hi];
  out.cycles = lerp(lo.s, hi.s, bk.t);
  out.pattern_below = lo.pattern;
  out.pattern_above = hi.pattern;
  out.k_below = lo.k;
  out.k_above = hi.k;

  // Beyond the most serialized calibrated pattern: carry on with the fitted shape.
  if (std::isfinite(k) && k > k_axis.back()) {
    std::vector<ClampNote> already_noted;
    const VariantFit* f = fit_.for_variant(pick_variant(v, already_noted));
    const double n_used = std::max(n, 1.0);
    if (f) {
      const double at_edge = f->predict(n_used, k_axis.back());
      const double beyond = f->predict(n_used, k);
      if (at_edge > 0 && beyond > 0) {
        out.cycles *= beyond / at_edge;
        out.extrapolated_by_fit = true;
      }
    }
  }
  return out;
}

ServiceTimeEstimate ServiceTimeModel::single_warp_service(double e, double c, double k,
                                                          OpVariant v) const {
  const double smallest_n =
      table_.axes.n.empty() ? 1.0 : *std::min_element(table_.axes.n.begin(), table_.axes.n.end());
  ServiceTimeEstimate out = at(smallest_n, e, c, k, v);
  out.method = "service time with one warp in flight";
  return out;
}

ServiceTimeEstimate ServiceTimeModel::unloaded_latency(double e, double c, double k,
                                                       OpVariant v) const {
  if (table_.latencies.empty()) {
    ServiceTimeEstimate out = single_warp_service(e, c, k, v);
    out.method = "no latency chains in the table: service time with one warp in flight";
    return out;
  }
  (void)e;  // the chains' cost depends on the lanes serialized, which k already carries
  const double c_used = std::clamp(std::isfinite(c) ? c : 0.0, 0.0, 1.0);
  const double lanes = std::max(1.0, k / (1.0 + c_used));
  ServiceTimeEstimate out;
  out.method = "dependent-chain latency measured by calibration";
  auto chain = [&](calibration::LatencyOp op) -> std::optional<double> {
    std::map<double, std::pair<double, int>> by_lanes;  // serialized lanes -> sum, count
    for (const calibration::LatencyCell& cell : table_.latencies) {
      if (cell.op != op) continue;
      auto& slot = by_lanes[serialized_lanes(cell.pattern, cell.e)];
      slot.first += cell.cycles;
      ++slot.second;
    }
    if (by_lanes.empty()) return std::nullopt;
    std::vector<double> axis, value;
    for (const auto& [l, sum_count] : by_lanes) {
      axis.push_back(l);
      value.push_back(sum_count.first / sum_count.second);
    }
    std::vector<ClampNote> clamped;
    const Bracket b = bracket(axis, lanes, false, "k", clamped);
    for (ClampNote& note : clamped) {  // report in the unit the caller gave: wavefronts
      note.requested = k;
      note.used = b.used * (1.0 + c_used);
      out.clamped.push_back(note);
    }
    return lerp(value[b.lo], value[b.hi], b.t);
  };
  const auto add = chain(calibration::LatencyOp::kAdd);
  const auto cas = chain(calibration::LatencyOp::kCas);
  if (out.clamped.size() > 1) out.clamped.resize(1);
  out.cycles = (1.0 - c_used) * add.value_or(cas.value_or(0)) + c_used * cas.value_or(add.value_or(0));
  out.pattern_below = out.pattern_above = "latency chain";
  out.k_below = out.k_above = lanes * (1.0 + c_used);
  (void)v;
  return out;
}

std::optional<std::string> bundled_table_path(const std::string& dir, const std::string& chip) {
  if (!is_chip_name(chip)) return std::nullopt;  // never a path built from a file's bytes
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::path(dir) / (chip + ".json");
  if (std::filesystem::is_regular_file(path, ec)) return path.string();
  return std::nullopt;
}

std::optional<std::string> bundled_gpu_table_path(const std::string& dir, const std::string& chip,
                                                  const std::string& gpu_name) {
  // The driver's names are short; a longer one (from a file) could not make a valid file name.
  if (gpu_name.empty() || gpu_name.size() > 64) return std::nullopt;
  std::string model;
  for (const char ch : gpu_name) model += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return bundled_table_path(dir, chip + "." + model);
}

std::optional<std::string> bundled_table_for(const std::string& dir, const std::string& chip,
                                             const std::string& gpu_name) {
  if (auto own = bundled_gpu_table_path(dir, chip, gpu_name)) return own;
  return bundled_table_path(dir, chip);
}

}  // namespace atomq::model
