// A small, complete service table built in code, for tests of readers and writers.
#pragma once

#include <algorithm>
#include <cmath>

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

// Service time of the synthetic L2 section's saturated cells, in L2 cycles per request, shaped
// by the H200 figures of docs/model.md ("The L2 queue"): one same-address u32 RED per L2 cycle
// at one slice, a same-address f32 RED every 3.5 cycles.
inline double synthetic_l2_cycles(GlobalAtomicOp op, AddressSpread spread) {
  using Op = GlobalAtomicOp;
  const bool cas = op == Op::kAtomCasU32 || op == Op::kAtomCasU64;
  switch (spread) {
    case AddressSpread::kOneAddress:
      return op == Op::kRedAddF32 ? 3.5 : op == Op::kRedAddU64 ? 2.0 : cas ? 4.0 : 1.0;
    case AddressSpread::kOneLine:  // a whole-line request of 32 lanes
      return cas ? 5.0 : 4.4;
    case AddressSpread::kManyLines:
      return op == Op::kRedAddF32 ? 1.9 : cas ? 2.2 : 0.9;
    default:
      return cas ? 5.6 : 4.8;
  }
}

// The synthetic L2 law (model/l2_law.hpp) each op's law cells follow, p = 4: a request costs
// the many-lines S, a sector the whole-line S over its sectors (two for CAS), an update of one
// word waits the one-address S.
struct SyntheticLawTerms {
  double a, b, lambda;
};
inline SyntheticLawTerms synthetic_law_terms(GlobalAtomicOp op) {
  using Op = GlobalAtomicOp;
  const bool cas = op == Op::kAtomCasU32 || op == Op::kAtomCasU64;
  return {synthetic_l2_cycles(op, AddressSpread::kManyLines), cas ? 2.5 : 1.1,
          synthetic_l2_cycles(op, AddressSpread::kOneAddress)};
}
inline constexpr double kSyntheticLawExponent = 4.0;

inline double synthetic_law_cycles(GlobalAtomicOp op, double sectors, double chains) {
  const SyntheticLawTerms t = synthetic_law_terms(op);
  return std::pow(std::pow(std::max(t.a, t.b * sectors), kSyntheticLawExponent) +
                      std::pow(t.lambda / chains, kSyntheticLawExponent),
                  1.0 / kSyntheticLawExponent);
}

// Law-sweep cells made by that law: H hot words one per line (the hottest slice holds 2/3 of one
// line's requests, down to 1/48 of them) and packed (32 words a line, 4 sectors when whole).
inline void add_synthetic_law_cells(calibration::L2Section& l2) {
  for (GlobalAtomicOp op : l2.ops)
    for (int h : {1, 2, 4, 8, 16, 64, 256, 1024, 4096})
      for (bool packed : {false, true}) {
        calibration::L2Cell c;
        c.op = op;
        c.spread = packed ? AddressSpread::kOneLine : AddressSpread::kManyLines;
        c.warps_per_sm = l2.warps_per_sm.back();
        c.hot_addresses = c.addresses = h;
        c.packed = packed;
        const double lines = packed ? std::ceil(h / 32.0) : h;
        c.hottest_slice_share = 0.667 * std::max(1.0 / lines, 1.0 / 48);
        const bool cas = op == GlobalAtomicOp::kAtomCasU32 || op == GlobalAtomicOp::kAtomCasU64;
        c.sectors_per_request = packed ? std::min(cas ? 2.0 : 4.0, std::ceil(h / 8.0)) : 1.0;
        c.requests_per_instruction = packed ? 1.5 : 48;
        c.cycles_per_request = synthetic_law_cycles(op, c.sectors_per_request, std::max(1.0, lines * c.hottest_slice_share / 0.667));
        c.cycles_min = c.cycles_max = c.cycles_per_request;
        c.busy_fraction = 0.85;
        c.gpu_requests_per_cycle = 1.0 / (c.cycles_per_request * c.hottest_slice_share);
        c.duration_ns = 1e6;
        c.requests = 1e7;
        c.requests_in_flight = 1e4;
        l2.law_cells.push_back(c);
      }
}

// A synthetic L2 section (made-up but H200-shaped numbers, not a measurement): every op and
// spread at 4 and 64 warps per SM, 96 slices, a 1980 MHz L2 clock.
inline calibration::L2Section make_synthetic_l2_section() {
  using namespace atomq::calibration;
  L2Section l2;
  l2.slices = 96;
  l2.l2_clock_mhz = 1980;
  l2.wall_seconds = 2.0;
  l2.ops = enum_values<GlobalAtomicOp>();
  l2.spreads = enum_values<AddressSpread>();
  l2.warps_per_sm = {4, 64};
  for (GlobalAtomicOp op : l2.ops)
    for (AddressSpread spread : l2.spreads)
      for (int warps : l2.warps_per_sm) {
        L2Cell c;
        c.op = op;
        c.spread = spread;
        c.warps_per_sm = warps;
        c.addresses = spread == AddressSpread::kOneAddress ? 1
                      : spread == AddressSpread::kOneLine  ? 32
                      : spread == AddressSpread::kManyLines ? 1024
                                                            : 132 * 64 * 32;
        // Per-lane requests (1.5 per lane) except whole-line ones; one address puts 2/3 of them
        // on its slice (as the H200's 16.8 M of 25.2 M).
        const bool whole_lines = spread == AddressSpread::kOneLine || spread == AddressSpread::kDistinct;
        c.requests_per_instruction = whole_lines ? 1.5 : 48;
        c.hottest_slice_share = spread == AddressSpread::kOneAddress || spread == AddressSpread::kOneLine
                                    ? 0.667
                                    : spread == AddressSpread::kManyLines ? 1.0 / 64 : 1.0 / 96;
        c.cycles_per_request = synthetic_l2_cycles(op, spread) * (warps == 4 ? 1.5 : 1.0);
        c.cycles_min = c.cycles_per_request * 0.99;
        c.cycles_max = c.cycles_per_request * 1.01;
        c.repeat_spread = 0.02;
        // Same-address float adds keep the slice's input busy only a third of the time.
        c.busy_fraction = spread == AddressSpread::kOneAddress && op == GlobalAtomicOp::kRedAddF32 ? 0.33 : 0.85;
        c.gpu_requests_per_cycle = 1.0 / (c.cycles_per_request * c.hottest_slice_share);
        l2.cells.push_back(c);
      }
  add_synthetic_law_cells(l2);
  return l2;
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
  t.l2 = make_synthetic_l2_section();
  return t;
}

}  // namespace atomq::test
