// The CAS retry sweep: each point sized to a target launch time, then timed `repeats` times.
#include "atomq/calibration/cas_retry_sweep.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "atomq/common/statistics.hpp"
#include "atomq/microbench/cas_retry.hpp"

namespace atomq::calibration {

namespace {

constexpr int kMaxUpdatesPerLane = 1 << 14;

// Updates per lane for about target_ms, scaled from one trial of one update per lane.
int updates_for(microbench::CasRetryBench& bench, microbench::CasRetryConfig c, double target_ms) {
  c.updates = 1;
  const double ms = bench.run(c).elapsed_ms;
  const double scaled = std::floor(target_ms / std::max(ms, 1e-3));
  return static_cast<int>(std::clamp(scaled, 1.0, static_cast<double>(kMaxUpdatesPerLane)));
}

CasRetryPoint measure(microbench::CasRetryBench& bench, const microbench::CasRetryConfig& c, int repeats) {
  std::vector<double> times, attempts;
  for (int r = 0; r < repeats; ++r) {
    const microbench::CasRetryLaunch l = bench.run(c);
    if (!l.exact)
      throw std::runtime_error(fmt::format("CAS retry sweep: {} warps x {} lanes on {} words lost updates",
                                           c.warps, c.active_lanes, c.addresses));
    times.push_back(l.elapsed_ms * 1e6);
    attempts.push_back(l.attempts);
  }
  CasRetryPoint p;
  p.warps = c.warps;
  p.active_lanes = c.active_lanes;
  p.addresses = c.addresses;
  p.updates_per_lane = c.updates;
  p.duration_ns = median(times);
  p.attempts = median(attempts);
  p.updates = static_cast<double>(c.warps) * c.active_lanes * c.updates;
  return p;
}

}  // namespace

CasRetryPlan make_cas_retry_plan(int max_resident_warps) {
  CasRetryPlan p;
  const int all = max_resident_warps;
  p.series = {{1, 1, {1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2112, all}},
              {4, 1, {1, 4, 16, 66, 264, 1056, 2048}},
              {32, 1, {1, 2, 4, 8, 16, 33, 66, 132, 256}},
              {32, 16, {16, 132, 528, 2112}},
              {32, 256, {256, 1056, all}}};
  return p;
}

std::vector<CasRetryPoint> run_cas_retry_sweep(microbench::CasRetryBench& bench, const CasRetryPlan& plan,
                                               const std::function<void(std::string)>& point_done) {
  std::vector<CasRetryPoint> points;
  for (const CasRetrySeries& s : plan.series) {
    for (int warps : s.warps) {
      if (warps > bench.max_resident_warps()) continue;
      // Lanes competing for one word (warps spread round-robin over the words).
      const double lanes_per_address = std::ceil(static_cast<double>(warps) / s.addresses) * s.active_lanes;
      if (lanes_per_address > plan.max_lanes_per_address) continue;
      microbench::CasRetryConfig c{warps, s.active_lanes, s.addresses, 1};
      c.updates = updates_for(bench, c, plan.target_launch_ms);
      points.push_back(measure(bench, c, plan.repeats));
      const CasRetryPoint& p = points.back();
      spdlog::debug("CAS retry {} warps x {} lanes on {} words: {:.3g} attempts per update, {:.1f} ns per update",
                    warps, s.active_lanes, s.addresses, p.attempts / p.updates, p.duration_ns / p.updates);
      point_done(fmt::format("cas retry w={} e={} a={}", warps, s.active_lanes, s.addresses));
    }
  }
  return points;
}

}  // namespace atomq::calibration
