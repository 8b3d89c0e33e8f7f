// The load sweep: each cell sized to a target launch time from one trial, then timed.
#include "atomq/calibration/load_sweep.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "atomq/common/statistics.hpp"
#include "atomq/microbench/load_chain.hpp"

namespace atomq::calibration {

namespace {

constexpr int kWarpsPerSm[] = {1, 2, 4, 8, 16, 32, 48, 64};
constexpr int kSectorsPerRequest[] = {4, 8, 16, 32};
constexpr int kTrialSteps = 64;
constexpr int kMaxSteps = 1 << 16;

microbench::LoadResidency bench_residency(LoadResidency r) {
  return r == LoadResidency::kL2 ? microbench::LoadResidency::kL2 : microbench::LoadResidency::kDram;
}

LoadCell measure(microbench::LoadChainBench& bench, LoadResidency residency, int sectors, int warps, int repeats,
                 double target_ms) {
  microbench::LoadChainConfig c;
  c.residency = bench_residency(residency);
  c.warps_per_sm = warps;
  c.sectors_per_request = sectors;
  c.steps = kTrialSteps;
  const double trial = median(bench.time_ms(c, 1));
  c.steps = static_cast<int>(std::clamp(std::floor(kTrialSteps * target_ms / std::max(trial, 1e-3)),
                                        static_cast<double>(kTrialSteps), static_cast<double>(kMaxSteps)));
  std::vector<double> round_trips;
  for (double ms : bench.time_ms(c, repeats)) round_trips.push_back(ms * 1e6 / c.steps);
  LoadCell cell;
  cell.residency = residency;
  cell.sectors_per_request = sectors;
  cell.warps_per_sm = warps;
  cell.steps = c.steps;
  const SampleSummary r = summarize(round_trips);
  cell.round_trip_ns = r.median;
  cell.round_trip_min_ns = r.min;
  cell.round_trip_max_ns = r.max;
  cell.repeat_spread = (cell.round_trip_max_ns - cell.round_trip_min_ns) / cell.round_trip_ns;
  return cell;
}

}  // namespace

LoadSection run_load_sweep(microbench::LoadChainBench& bench, int repeats, double target_launch_ms) {
  const auto begin = std::chrono::steady_clock::now();
  LoadSection section;
  for (LoadResidency residency : {LoadResidency::kL2, LoadResidency::kDram})
    for (int sectors : kSectorsPerRequest)
      for (int warps : kWarpsPerSm) {
        if (warps > bench.device().max_warps_per_sm) continue;
        section.cells.push_back(measure(bench, residency, sectors, warps, repeats, target_launch_ms));
        const LoadCell& c = section.cells.back();
        spdlog::debug("loads {} {} sectors x {} warps per SM: round trip {:.1f} ns (spread {:.2f}%)",
                      enum_name(c.residency), c.sectors_per_request, c.warps_per_sm, c.round_trip_ns,
                      100.0 * c.repeat_spread);
      }
  section.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return section;
}

}  // namespace atomq::calibration
