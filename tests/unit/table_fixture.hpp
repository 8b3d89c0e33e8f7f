// A small, complete service table built in code, for tests of readers and writers.
#pragma once

#include "atomq/calibration/service_table.hpp"

namespace atomq::test {

// An H200 as the tables built in code describe it.
inline DeviceInfo h200_device(const std::string& name) {
  DeviceInfo d;
  d.name = name;
  d.chip = "GH100";
  d.compute_capability_major = 9;
  d.sm_count = 132;
  d.max_warps_per_sm = 64;
  d.clock_khz = 1980000;
  return d;
}

inline calibration::ServiceTable make_small_table() {
  using namespace atomq::calibration;
  ServiceTable t;
  Provenance& p = t.provenance;
  p.device = h200_device("Test GPU");
  p.sm_clock_mhz_start = 1980;
  p.sm_clock_mhz_end = 1975;
  p.device.driver_version = 13000;
  p.device.runtime_version = 13000;
  p.created_utc = "2026-11-29T00:00:00Z";
  p.atomq_version = "0.1.0";
  p.atomq_commit = "test";
  p.grid_name = "test";
  p.repeats = 5;
  p.wall_seconds = 1.0;
  t.axes.n = {1, 8, 64};
  t.axes.e = {1, 32};
  t.axes.c = {0.0, 1.0};
  t.axes.variants = {OpVariant::kPopcInc, OpVariant::kAdd};
  t.axes.patterns = {Pattern{1}, Pattern{32}, Pattern{0}};
  for (int n : t.axes.n)
    for (int e : t.axes.e) {
      t.controls.push_back(ControlCell{n, e, 0.05});
      for (double c : t.axes.c)
        for (OpVariant v : t.axes.variants)
          for (const Pattern& pat : t.axes.patterns) {
            const double k = pat.conflict_degree <= 1 ? 1.0 : pat.conflict_degree;
            const double s = (1.0 + c) * k * (n == 1 ? 4.0 : 1.0);
            t.cells.push_back(Cell{n, e, c, v, pat, s, s * 0.99, s * 1.01, 0.02, 0.01, 512});
          }
    }
  for (LatencyOp op : {LatencyOp::kAdd, LatencyOp::kCas})
    for (const Pattern& pat : t.axes.patterns)
      t.latencies.push_back(LatencyCell{op, pat, 32, 60.0, 59.0, 61.0});
  return t;
}

}  // namespace atomq::test
