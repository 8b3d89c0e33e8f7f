#include "atomq/calibration/calibrator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iterator>
#include <stdexcept>

#include "atomq/microbench/atomic_stream.hpp"
#include "atomq/version.hpp"

namespace atomq::calibration {

namespace mb = atomq::microbench;

double quantile(std::vector<double> v, double q) {
  if (v.empty()) throw std::invalid_argument("quantile of an empty sample");
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] * (1.0 - frac) + v[hi] * frac;
}

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

namespace {

mb::AddressPattern to_bench_pattern(const Pattern& p) {
  if (p.conflict_degree == 0) return {mb::PatternKind::kSameAddress, 1};
  if (p.conflict_degree == 1) return {mb::PatternKind::kDistinct, 1};
  return {mb::PatternKind::kBankConflict, p.conflict_degree};
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

struct Measured {
  double s, s_min, s_max, spread, sm_spread;
  long long atomics_per_warp;
};

// Median, minimum and maximum of the per-repeat medians.
struct RepeatSummary {
  double median, min, max;
};

RepeatSummary summarize_repeats(std::vector<double> repeat_medians) {
  return {median(repeat_medians), *std::min_element(repeat_medians.begin(), repeat_medians.end()),
          *std::max_element(repeat_medians.begin(), repeat_medians.end())};
}

// The latency chains measured per op and pattern, at these lane counts.
constexpr LatencyOp kLatencyOps[] = {LatencyOp::kAdd, LatencyOp::kCas};
constexpr int kLatencyLanes[] = {1, 32};

// One warm-up launch, then `repeats` measured ones.
Measured measure(mb::AtomicStreamBench& bench, const mb::StreamConfig& config, int repeats) {
  bench.run(config);
  std::vector<double> repeat_medians, pooled;
  long long apw = 0;
  for (int r = 0; r < repeats; ++r) {
    mb::StreamResult res = bench.run(config);
    if (res.cycles_per_inst.empty())
      throw std::runtime_error("no SM ran the requested load (blocks were not placed as planned)");
    if (res.sms_skipped > 0)
      spdlog::debug("{} SMs skipped (unexpected block placement)", res.sms_skipped);
    repeat_medians.push_back(median(res.cycles_per_inst));
    pooled.insert(pooled.end(), res.cycles_per_inst.begin(), res.cycles_per_inst.end());
    apw = res.atomics_per_warp;
  }
  Measured m{};
  const RepeatSummary r = summarize_repeats(repeat_medians);
  m.s = r.median;
  m.s_min = r.min;
  m.s_max = r.max;
  m.spread = m.s > 0 ? (m.s_max - m.s_min) / m.s : 0.0;
  const double pooled_median = median(pooled);
  m.sm_spread = pooled_median > 0 ? (quantile(pooled, 0.9) - quantile(pooled, 0.1)) / pooled_median : 0.0;
  m.atomics_per_warp = apw;
  return m;
}

int cas_quarters(double c) {
  const double q = c * mb::kCasSlotsPerGroup;
  const int rounded = static_cast<int>(std::lround(q));
  if (std::fabs(q - rounded) > 1e-9)
    throw std::invalid_argument("CAS ratio " + std::to_string(c) + " is not a multiple of 1/4");
  return rounded;
}

}  // namespace

ServiceTable run_calibration(mb::AtomicStreamBench& bench, const SweepPlan& plan,
                             const CalibrationOptions& options) {
  const auto t_begin = std::chrono::steady_clock::now();
  const mb::DeviceSummary& dev = bench.device();
  ServiceTable table;
  Provenance& p = table.provenance;
  p.gpu_name = dev.name;
  p.chip = options.chip;
  p.compute_capability_major = dev.cc_major;
  p.compute_capability_minor = dev.cc_minor;
  p.sm_count = dev.sm_count;
  p.max_warps_per_sm = dev.max_warps_per_sm;
  p.nominal_clock_mhz = dev.clock_khz / 1000;
  p.driver_version = mb::cuda_version_string(dev.driver_version);
  p.cuda_runtime_version = mb::cuda_version_string(dev.runtime_version);
  p.driver_release = mb::nvidia_driver_release();
  p.created_utc = utc_now();
  p.atomq_version = kVersion;
  p.atomq_commit = kGitCommit;
  p.grid_name = plan.name;
  p.repeats = plan.repeats;
  table.axes = plan.axes;

  p.sm_clock_mhz_start = bench.measure_sm_clock_mhz();
  spdlog::info("calibrating {} ({} SMs, SM clock {:.0f} MHz under load), {} grid: {} cells",
               dev.name, dev.sm_count, p.sm_clock_mhz_start, plan.name, plan.cell_count());

  const size_t total = plan.cell_count() + plan.axes.n.size() * plan.axes.e.size() +
                       std::size(kLatencyOps) * plan.axes.patterns.size() * std::size(kLatencyLanes);
  CalibrationProgress progress{0, total, ""};
  auto report = [&](std::string label) {
    ++progress.done;
    progress.current = std::move(label);
    if (options.progress) options.progress(progress);
  };

  for (int n : plan.axes.n) {
    for (int e : plan.axes.e) {
      mb::StreamConfig control;
      control.warps_per_sm = n;
      control.active_lanes = e;
      control.fao = mb::FaoVariant::kNone;
      control.atomics_per_warp = plan.atomics_per_warp(n);
      const Measured m = measure(bench, control, plan.repeats);
      table.controls.push_back(ControlCell{n, e, m.s});
      report("control n=" + std::to_string(n) + " e=" + std::to_string(e));

      for (double c : plan.axes.c) {
        for (OpVariant v : plan.axes.variants) {
          for (const Pattern& pat : plan.axes.patterns) {
            mb::StreamConfig cfg;
            cfg.warps_per_sm = n;
            cfg.active_lanes = e;
            cfg.cas_quarters = cas_quarters(c);
            cfg.fao = v == OpVariant::kPopcInc ? mb::FaoVariant::kPopcInc : mb::FaoVariant::kAdd;
            cfg.pattern = to_bench_pattern(pat);
            cfg.atomics_per_warp = plan.atomics_per_warp(n);
            const Measured cm = measure(bench, cfg, plan.repeats);
            table.cells.push_back(Cell{n, e, c, v, pat, cm.s, cm.s_min, cm.s_max, cm.spread,
                                       cm.sm_spread, cm.atomics_per_warp});
            report("n=" + std::to_string(n) + " e=" + std::to_string(e) + " c=" +
                   std::to_string(c).substr(0, 4) + " " + to_string(v) + " " + to_string(pat));
          }
        }
      }
    }
  }
  for (LatencyOp op : kLatencyOps) {
    for (const Pattern& pat : plan.axes.patterns) {
      for (int e : kLatencyLanes) {
        mb::LatencyConfig cfg;
        cfg.op = op == LatencyOp::kCas ? mb::LatencyOp::kCas : mb::LatencyOp::kAdd;
        cfg.pattern = to_bench_pattern(pat);
        cfg.active_lanes = e;
        bench.run_latency(cfg);  // warm-up
        std::vector<double> medians;
        for (int r = 0; r < plan.repeats; ++r) medians.push_back(median(bench.run_latency(cfg).cycles_per_atomic));
        const RepeatSummary r = summarize_repeats(medians);
        table.latencies.push_back(LatencyCell{op, pat, e, r.median, r.min, r.max});
        report("latency " + to_string(op) + " " + to_string(pat) + " e=" + std::to_string(e));
      }
    }
  }
  p.sm_clock_mhz_end = bench.measure_sm_clock_mhz();
  p.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_begin).count();
  return table;
}

}  // namespace atomq::calibration
