// A parametric service-time model fitted to the calibrated grid by least squares (Eigen):
// it smooths measurement noise, extrapolates past the grid (e.g. k above the largest
// calibrated conflict), and its residuals show how well the queue picture fits the GPU.
//
//   S_fit(n, k) = max( W(k), L(k) / n )      per op variant
//   W(k) = w0 + w1 * k                       saturated service time (throughput bound)
//   L(k) = max( L_floor, l0 + l1 * k )       unloaded latency of one warp instruction
//
// k is the wavefronts per warp instruction the cell's address pattern produces
// (expected_wavefronts). On the H200, w1 ~ 1 cycle per wavefront and l1 ~ 2.
#pragma once

#include <vector>

#include "atomq/calibration/service_table.hpp"

namespace atomq::model {

struct LinearInK {
  double intercept = 0;
  double slope = 0;
  double at(double k) const { return intercept + slope * k; }
};

struct VariantFit {
  calibration::OpVariant variant = calibration::OpVariant::kAdd;
  LinearInK saturation;         // W(k), fitted on cells with n >= saturated_from_n
  LinearInK latency;            // l0 + l1 k, fitted on the n = smallest-n cells above the floor
  double latency_floor = 0;     // smallest n = 1 service time of this variant
  int saturated_from_n = 0;
  int cells = 0;
  double rms_relative_residual = 0;
  double max_abs_relative_residual = 0;

  double predict(double n, double k) const;
};

struct ServiceFit {
  std::vector<VariantFit> variants;
  // (S_fit - S) / S per table cell, in the order of ServiceTable::cells.
  std::vector<double> relative_residual;

  const VariantFit* for_variant(calibration::OpVariant v) const;
};

// Never throws for a table that parse_service_table accepted; a variant with too few cells
// for a fit gets a constant model (slope 0).
ServiceFit fit_service_model(const calibration::ServiceTable& table);

}  // namespace atomq::model
