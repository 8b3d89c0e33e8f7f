// Tables and profiles built in code for the model tests. The table follows the H200's shape
// (docs/calibration.md): S = max(W, L / n) with W = wavefronts x 1 cycle and L = the unloaded
// latency; oracle_s is the closed form, so tests can check the model against it.
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/metric_names.hpp"
#include "table_fixture.hpp"
#include "atomq/model/wavefronts.hpp"

namespace atomq::test {

using calibration::OpVariant;
using calibration::Pattern;

inline double oracle_latency(double k, OpVariant v) {
  const double floor = v == OpVariant::kPopcInc ? 4.2 : 5.5;
  return std::max(floor, 2.0 * k + (v == OpVariant::kAdd ? 1.3 : 0.0));
}

inline double oracle_s(double n, double e, double c, OpVariant v, const Pattern& p) {
  const double k = model::expected_wavefronts(p, e, c, v);
  return std::max(k + 0.02, oracle_latency(k, v) / n);
}

// Issue-to-result latency of a dependent chain (H200: 41.7 ADD distinct, 169.5 CAS same).
inline double oracle_chain_latency(calibration::LatencyOp op, double serialized_lanes) {
  const double wavefronts = op == calibration::LatencyOp::kCas ? 2 * serialized_lanes : serialized_lanes;
  return 39.6 + 2.0 * wavefronts;
}

inline calibration::ServiceTable make_h200_like_table() {
  calibration::ServiceTable t;
  auto& p = t.provenance;
  p.device = h200_device("Test H200");
  p.sm_clock_mhz_start = p.sm_clock_mhz_end = 1980;
  p.grid_name = "test";
  p.repeats = 1;
  t.axes.n = {1, 2, 4, 8, 16, 32, 64};
  t.axes.e = {1, 2, 4, 8, 16, 32};
  t.axes.c = {0.0, 0.5, 1.0};
  t.axes.variants = {OpVariant::kPopcInc, OpVariant::kAdd};
  t.axes.patterns = {Pattern{1}, Pattern{2}, Pattern{4}, Pattern{8},
                     Pattern{16}, Pattern{32}, Pattern{0}};
  for (int n : t.axes.n)
    for (int e : t.axes.e)
      for (double c : t.axes.c)
        for (OpVariant v : t.axes.variants)
          for (const Pattern& pat : t.axes.patterns) {
            const double s = oracle_s(n, e, c, v, pat);
            t.cells.push_back(calibration::Cell{n, e, c, v, pat, s, s, s, 0, 0, 1024});
          }
  for (calibration::LatencyOp op : {calibration::LatencyOp::kAdd, calibration::LatencyOp::kCas})
    for (const Pattern& pat : t.axes.patterns)
      for (int e : {1, 32}) {
        const double cycles = oracle_chain_latency(op, model::serialized_lanes(pat, e));
        t.latencies.push_back(calibration::LatencyCell{op, pat, e, cycles, cycles, cycles});
      }
  return t;
}

// One kernel's counters, GPU-wide, spread evenly over the SMs unless busiest_share is set.
struct ProfileSpec {
  std::string name = "kernel";
  double instructions = 132.0 * 100000;  // N, all SMs
  double cas_share = 0;                  // c
  double wavefronts_per_instruction = 1; // k
  std::optional<double> active_lanes = 32.0;  // e; nullopt: no thread-level counter
  double occupancy_pct = 50;             // x 64 warps = n̂
  double active_cycles_sum = 132.0 * 200000;
  int sm_count = 132;
  double busiest_share = 1.0;            // busiest SM's wavefronts / the mean SM's
  double clock_mhz = 1980;
  std::optional<OpVariant> variant = OpVariant::kAdd;
  std::optional<double> dram_bytes;
  double dram_peak = 0;
};

inline model::KernelProfile make_profile(const ProfileSpec& s) {
  namespace m = model::metric;
  model::KernelProfile p;
  p.kernel_name = s.name;
  p.launch.grid = {264, 1, 1};
  p.launch.block = {256, 1, 1};
  p.device.name = "Test H200";
  p.device.chip = "GH100";
  p.device.compute_capability_major = 9;
  p.device.sm_count = s.sm_count;
  p.device.max_warps_per_sm = 64;
  p.device.sm_clock_mhz = s.clock_mhz;
  p.device.dram_peak_bytes_per_s = s.dram_peak;
  p.source = model::CounterSource::kSynthetic;
  p.shared_atomic_variant = s.variant;
  const double cas = s.instructions * s.cas_share;
  p.counters[m::kSharedAtomInst] = s.instructions;
  p.counters[m::kSharedAtomInstAlu] = s.instructions - cas;
  p.counters[m::kSharedAtomInstCas] = cas;
  const double wavefronts = s.instructions * s.wavefronts_per_instruction;
  p.counters[m::kSharedAtomWavefronts] = wavefronts;
  p.counters[m::kSharedAtomWavefrontsMax] = wavefronts / s.sm_count * s.busiest_share;
  if (s.active_lanes) p.counters[m::kSharedAtomThreadOps] = s.instructions * *s.active_lanes;
  const double mean_cycles = s.active_cycles_sum / s.sm_count;
  p.counters[m::kCyclesActiveSum] = s.active_cycles_sum;
  p.counters[m::kCyclesActiveAvg] = mean_cycles;
  p.counters[m::kCyclesActiveMax] = mean_cycles * std::max(1.0, s.busiest_share);
  p.counters[m::kAchievedOccupancyPct] = s.occupancy_pct;
  p.counters[m::kDurationNs] = mean_cycles * std::max(1.0, s.busiest_share) / s.clock_mhz * 1000;
  if (s.dram_bytes) p.counters[m::kDramBytesRead] = *s.dram_bytes;
  return p;
}

// Active cycles (all SMs) that give utilization u for N instructions of service time s.
inline double cycles_for_utilization(double instructions, double s, double u) {
  return instructions * s / u;
}

}  // namespace atomq::test
