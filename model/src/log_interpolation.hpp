// Interpolation on log-log axes, for the model's calibrated curves (the retry law's a(m), the L2
// law's share curve). Private to the model library.
#pragma once

#include <cmath>

namespace atomq::model::detail {

// y at x on the straight line through (x0, y0) and (x1, y1) in log x and log y (all positive,
// x0 != x1); beyond the two points, the same line.
inline double log_log_between(double x, double x0, double x1, double y0, double y1) {
  const double t = std::log(x / x0) / std::log(x1 / x0);
  return std::exp(std::log(y0) + t * std::log(y1 / y0));
}

}  // namespace atomq::model::detail
