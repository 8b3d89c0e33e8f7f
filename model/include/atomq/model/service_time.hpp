// Service time S: cycles the shared atomic unit is busy per warp instruction, looked up in
// the calibrated table and interpolated over its axes:
//   n  warps in flight per SM   geometric axis: log n, and log S (S ~ L / n below saturation)
//   e  active lanes             geometric axis: log e, linear S
//   c  CAS share                linear axis, linear S (S is a mix of two op streams)
//   k  wavefronts per instr.    across address patterns, linear S (S ~ k at saturation)
// Exact on grid points; between grid points the value lies between its neighbours.
// Points outside the calibrated range are clamped to it and the clamp is recorded.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/cas_retry_law.hpp"
#include "atomq/model/service_fit.hpp"
#include "atomq/model/wavefronts.hpp"

namespace atomq::model {

// A requested coordinate outside the calibrated range and the value used instead.
struct ClampNote {
  std::string axis;  // "n", "e", "c", "k", "variant"
  double requested = 0;
  double used = 0;
};

struct ServiceTimeEstimate {
  double cycles = 0;                // S
  std::vector<ClampNote> clamped;   // empty: inside the calibrated range
  bool extrapolated_by_fit = false; // k beyond the grid: the fitted slope carried it further
  std::string method;               // how it was obtained, in words
  // The patterns whose wavefronts bracket the requested k (equal when k hits one exactly).
  std::string pattern_below, pattern_above;
  double k_below = 0, k_above = 0;

  bool in_range() const { return clamped.empty(); }
};

class ServiceTimeModel {
 public:
  explicit ServiceTimeModel(calibration::ServiceTable table);

  const calibration::ServiceTable& table() const { return table_; }
  // The table's L2 section, or null when it has no cells (the L2 queue is then not evaluated).
  const calibration::DsmemSection* dsmem_section() const {
    return table_.dsmem.empty() ? nullptr : &table_.dsmem;
  }
  const calibration::LoadSection* load_section() const {
    return table_.loads.empty() ? nullptr : &table_.loads;
  }
  const calibration::LaunchSection* launch_section() const {
    return table_.launch.empty() ? nullptr : &table_.launch;
  }
  const calibration::L2Section* l2_section() const {
    return table_.l2.cells.empty() ? nullptr : &table_.l2;
  }
  const ServiceFit& fit() const { return fit_; }
  // The CAS retry law of the table's L2 section (not fitted, with why, when it has no sweep).
  const CasRetryLaw& cas_retry_law() const { return cas_retry_law_; }

  // S on one calibrated slice (variant, pattern).
  ServiceTimeEstimate on_pattern(double n, double e, double c, calibration::OpVariant v,
                                 const calibration::Pattern& p) const;
  // S for a measured serialization k, between the patterns whose wavefronts bracket it.
  ServiceTimeEstimate at(double n, double e, double c, double k, calibration::OpVariant v) const;
  // Issue interval of one warp alone: S at the smallest calibrated n. One warp cannot
  // complete atomics faster than 1 / this, which bounds the warps in flight from below.
  ServiceTimeEstimate single_warp_service(double e, double c, double k,
                                          calibration::OpVariant v) const;
  // Unloaded latency: issue to result of one atomic without queueing, from the table's
  // dependent-chain measurements (ADD and CAS), keyed by the serialized lanes k / (1 + c) and
  // mixed by c. A table without them falls back to single_warp_service (method says so).
  ServiceTimeEstimate unloaded_latency(double e, double c, double k,
                                       calibration::OpVariant v) const;

 private:
  using CellKey = std::tuple<int, int, long long, int, int>;  // n, e, c in 1e-6, variant, pattern
  static CellKey key(int n, int e, double c, calibration::OpVariant v, int conflict_degree);
  double cell(int n, int e, double c, calibration::OpVariant v, int conflict_degree) const;
  calibration::OpVariant pick_variant(calibration::OpVariant wanted,
                                      std::vector<ClampNote>& clamped) const;

  calibration::ServiceTable table_;
  ServiceFit fit_;
  CasRetryLaw cas_retry_law_;
  std::vector<double> n_axis_, e_axis_, c_axis_;  // sorted once, for every lookup
  std::map<CellKey, double> cells_;
};

// The bundled table for a chip: <dir>/<chip>.json when that file exists.
std::optional<std::string> bundled_table_path(const std::string& dir, const std::string& chip);

// The bundled table of one GPU model of a chip (boards of one chip differ in memory and clocks,
// e.g. an H100 SXM and an H200): <dir>/<chip>.<gpu name, other than letters and digits as '_'>.json
// when that file exists; gpu_name as the driver gives it ("NVIDIA H100 80GB HBM3").
std::optional<std::string> bundled_gpu_table_path(const std::string& dir, const std::string& chip,
                                                  const std::string& gpu_name);

// The bundled table a profile of that GPU is evaluated with: its GPU model's, else its chip's.
std::optional<std::string> bundled_table_for(const std::string& dir, const std::string& chip,
                                             const std::string& gpu_name);

}  // namespace atomq::model
