#include "atomq/calibration/calibrator.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "atomq/common/statistics.hpp"
#include "atomq/common/timestamp.hpp"
#include "atomq/microbench/atomic_stream.hpp"
#include "atomq/version.hpp"

namespace atomq::calibration {

namespace mb = atomq::microbench;

namespace {

struct Measured {
  double s, s_min, s_max, spread, sm_spread;
  long long atomics_per_warp;
};

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
  const SampleSummary r = summarize(repeat_medians);
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

// Provenance of a table measured on `dev` with `plan` (clocks and wall time are filled in
// around the sweep).
Provenance start_provenance(const DeviceInfo& dev, const SweepPlan& plan,
                            const CalibrationOptions& options) {
  Provenance p;
  p.device = dev;
  p.device.chip = options.chip;
  p.driver_release = nvidia_driver_release();
  p.created_utc = utc_now_iso8601();
  p.atomq_version = kVersion;
  p.atomq_commit = kGitCommit;
  p.grid_name = plan.name;
  p.repeats = plan.repeats;
  return p;
}

// Counts measured cells and hands each label to the caller's progress callback.
class ProgressCounter {
 public:
  ProgressCounter(const SweepPlan& plan, const CalibrationOptions& options)
      : options_(options),
        progress_{0,
                  plan.cell_count() + plan.axes.n.size() * plan.axes.e.size() +
                      std::size(kLatencyOps) * plan.axes.patterns.size() * std::size(kLatencyLanes) +
                      plan.l2.cell_count(),
                  ""} {}
  void done(std::string label) {
    ++progress_.done;
    progress_.current = std::move(label);
    if (options_.progress) options_.progress(progress_);
  }

 private:
  const CalibrationOptions& options_;
  CalibrationProgress progress_;
};

// The zero-atomic control and every (c, variant, pattern) cell of one (n, e).
void measure_load_point(mb::AtomicStreamBench& bench, const SweepPlan& plan, int n, int e,
                        ServiceTable& table, ProgressCounter& progress) {
  mb::StreamConfig control;
  control.warps_per_sm = n;
  control.active_lanes = e;
  control.control = true;
  control.atomics_per_warp = plan.atomics_per_warp(n);
  const Measured m = measure(bench, control, plan.repeats);
  table.controls.push_back(ControlCell{n, e, m.s});
  progress.done("control n=" + std::to_string(n) + " e=" + std::to_string(e));

  for (double c : plan.axes.c) {
    for (OpVariant v : plan.axes.variants) {
      for (const Pattern& pat : plan.axes.patterns) {
        mb::StreamConfig cfg;
        cfg.warps_per_sm = n;
        cfg.active_lanes = e;
        cfg.cas_quarters = cas_quarters(c);
        cfg.op = v;
        cfg.pattern = pat;
        cfg.atomics_per_warp = plan.atomics_per_warp(n);
        const Measured cm = measure(bench, cfg, plan.repeats);
        table.cells.push_back(Cell{n, e, c, v, pat, cm.s, cm.s_min, cm.s_max, cm.spread,
                                   cm.sm_spread, cm.atomics_per_warp});
        progress.done("n=" + std::to_string(n) + " e=" + std::to_string(e) + " c=" +
                      std::to_string(c).substr(0, 4) + " " + enum_name(v) + " " + to_string(pat));
      }
    }
  }
}

// Unloaded latency chains: one warp per SM, per op, pattern and lane count.
void measure_latencies(mb::AtomicStreamBench& bench, const SweepPlan& plan, ServiceTable& table,
                       ProgressCounter& progress) {
  for (LatencyOp op : kLatencyOps) {
    for (const Pattern& pat : plan.axes.patterns) {
      for (int e : kLatencyLanes) {
        mb::LatencyConfig cfg;
        cfg.op = op;
        cfg.pattern = pat;
        cfg.active_lanes = e;
        bench.run_latency(cfg);  // warm-up
        std::vector<double> medians;
        for (int r = 0; r < plan.repeats; ++r)
          medians.push_back(median(bench.run_latency(cfg).cycles_per_atomic));
        const SampleSummary r = summarize(medians);
        table.latencies.push_back(LatencyCell{op, pat, e, r.median, r.min, r.max});
        progress.done("latency " + enum_name(op) + " " + to_string(pat) + " e=" + std::to_string(e));
      }
    }
  }
}

}  // namespace

ServiceTable run_calibration(mb::AtomicStreamBench& bench, mb::L2AtomicStreamBench& l2_bench,
                             const SweepPlan& plan, const CalibrationOptions& options) {
  if (!options.l2_counters) throw std::invalid_argument("calibration needs the L2 counter probe");
  const auto t_begin = std::chrono::steady_clock::now();
  ServiceTable table;
  table.provenance = start_provenance(bench.device(), plan, options);
  table.axes = plan.axes;
  Provenance& p = table.provenance;
  p.sm_clock_mhz_start = bench.measure_sm_clock_mhz();
  spdlog::info("calibrating {} ({} SMs, SM clock {:.0f} MHz under load), {} grid: {} cells",
               p.device.name, p.device.sm_count, p.sm_clock_mhz_start, plan.name,
               plan.cell_count());
  ProgressCounter progress(plan, options);
  auto l2_sweep = [&] {
    spdlog::debug("L2 sweep: {} cells", plan.l2.cell_count());
    table.l2 = run_l2_sweep(l2_bench, plan.l2, plan.repeats, options.l2_counters,
                            [&progress](std::string label) { progress.done(std::move(label)); });
  };
  if (options.l2_sweep_first) l2_sweep();
  for (int n : plan.axes.n)
    for (int e : plan.axes.e) measure_load_point(bench, plan, n, e, table, progress);
  measure_latencies(bench, plan, table, progress);
  if (!options.l2_sweep_first) l2_sweep();
  p.sm_clock_mhz_end = bench.measure_sm_clock_mhz();
  p.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_begin).count();
  return table;
}

}  // namespace atomq::calibration
