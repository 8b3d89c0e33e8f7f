#include "atomq/model/service_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>

#include "atomq/model/wavefronts.hpp"

namespace atomq::model {

using calibration::Cell;
using calibration::OpVariant;
using calibration::ServiceTable;

double VariantFit::predict(double n, double k) const {
  const double saturated = saturation.at(k);
  const double latency_cycles = std::max(latency_floor, latency.at(k));
  return std::max(saturated, latency_cycles / std::max(n, 1.0));
}

const VariantFit* ServiceFit::for_variant(OpVariant v) const {
  for (const VariantFit& f : variants)
    if (f.variant == v) return &f;
  return nullptr;
}

namespace {

// Least squares y ~ a + b x; with fewer than two distinct x a constant (the mean).
LinearInK fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  LinearInK line;
  if (y.empty()) return line;
  const auto [min_x, max_x] = std::minmax_element(x.begin(), x.end());
  if (y.size() < 2 || *max_x - *min_x < 1e-12) {
    double sum = 0;
    for (double v : y) sum += v;
    line.intercept = sum / static_cast<double>(y.size());
    return line;
  }
  Eigen::MatrixXd design(static_cast<Eigen::Index>(x.size()), 2);
  Eigen::VectorXd rhs(static_cast<Eigen::Index>(y.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    // Relative weighting: S spans 1..130 cycles; without it the large cells dominate.
    const double w = 1.0 / y[i];
    design(static_cast<Eigen::Index>(i), 0) = w;
    design(static_cast<Eigen::Index>(i), 1) = w * x[i];
    rhs(static_cast<Eigen::Index>(i)) = 1.0;
  }
  const Eigen::Vector2d beta = design.colPivHouseholderQr().solve(rhs);
  line.intercept = beta(0);
  line.slope = beta(1);
  return line;
}

double cell_wavefronts(const Cell& c) {
  return expected_wavefronts(c.pattern, c.e, c.c, c.variant);
}

}  // namespace

ServiceFit fit_service_model(const ServiceTable& table) {
  ServiceFit result;
  result.relative_residual.assign(table.cells.size(), 0.0);
  if (table.axes.n.empty()) return result;
  const int smallest_n = *std::min_element(table.axes.n.begin(), table.axes.n.end());
  const int largest_n = *std::max_element(table.axes.n.begin(), table.axes.n.end());
  // Saturation: from 16 warps on the H200 unit is flat; a grid without such n uses its top.
  int saturated_from = largest_n;
  for (int n : table.axes.n)
    if (n >= 16) saturated_from = std::min(saturated_from, n);

  for (OpVariant v : table.axes.variants) {
    VariantFit fit;
    fit.variant = v;
    fit.saturated_from_n = saturated_from;
    std::vector<double> sat_k, sat_s, lat_k, lat_s;
    double floor = std::numeric_limits<double>::infinity();
    for (const Cell& c : table.cells) {
      if (c.variant != v) continue;
      if (c.n >= saturated_from) {
        sat_k.push_back(cell_wavefronts(c));
        sat_s.push_back(c.s);
      }
      if (c.n == smallest_n) floor = std::min(floor, c.s * smallest_n);
    }
    fit.latency_floor = std::isfinite(floor) ? floor : 0.0;
    // The linear latency part is fitted where it rises above the floor (large k).
    for (const Cell& c : table.cells) {
      if (c.variant != v || c.n != smallest_n) continue;
      const double latency = c.s * smallest_n;
      if (latency > 1.5 * fit.latency_floor) {
        lat_k.push_back(cell_wavefronts(c));
        lat_s.push_back(latency);
      }
    }
    fit.saturation = fit_line(sat_k, sat_s);
    fit.latency = fit_line(lat_k, lat_s);

    double sum_sq = 0;
    for (std::size_t i = 0; i < table.cells.size(); ++i) {
      const Cell& c = table.cells[i];
      if (c.variant != v) continue;
      const double r = (fit.predict(c.n, cell_wavefronts(c)) - c.s) / c.s;
      result.relative_residual[i] = r;
      sum_sq += r * r;
      fit.max_abs_relative_residual = std::max(fit.max_abs_relative_residual, std::fabs(r));
      ++fit.cells;
    }
    if (fit.cells > 0) fit.rms_relative_residual = std::sqrt(sum_sq / fit.cells);
    result.variants.push_back(fit);
  }
  return result;
}

}  // namespace atomq::model
