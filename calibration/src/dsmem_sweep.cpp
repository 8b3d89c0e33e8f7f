// The DSMEM sweep: each cell sized to a target launch time, then `repeats` launches of every
// cell in one counter batch; S per launch from its own counters.
#include "atomq/calibration/dsmem_sweep.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "atomq/common/statistics.hpp"
#include "atomq/microbench/atomic_paths.hpp"

namespace atomq::calibration {

namespace {

constexpr int kThreads = 256;
constexpr int kClusterSize = 2;
// red.async completes on an mbarrier whose transaction count holds 2^20 - 1 bytes.
constexpr int kMaxPerThread = ((1 << 20) - 1) / (4 * kThreads);

struct CellSpec {
  DsmemOp op;
  int bins;
};
constexpr CellSpec kCells[] = {{DsmemOp::kAtomicAdd, 256}, {DsmemOp::kAtomicAdd, 1},
                               {DsmemOp::kRedAsync, 256},  {DsmemOp::kRedAsync, 1}};

microbench::AtomicPathConfig config_of(const CellSpec& s, int blocks) {
  microbench::AtomicPathConfig c;
  c.path = s.op == DsmemOp::kAtomicAdd ? microbench::AtomicPathCase::kDsmemAtomicAdd
                                       : microbench::AtomicPathCase::kDsmemRedAsync;
  c.blocks = blocks;
  c.threads = kThreads;
  c.words = s.bins;
  c.cluster_size = kClusterSize;
  return c;
}

// Updates per thread for about target_ms, from one trial of 16.
int per_thread_for(microbench::AtomicPathBench& bench, microbench::AtomicPathConfig c, double target_ms) {
  c.per_thread = 16;
  const double ms = bench.run(c).elapsed_ms;
  const double scaled = std::floor(16.0 * target_ms / std::max(ms, 1e-3));
  return static_cast<int>(std::clamp(scaled, 16.0, static_cast<double>(kMaxPerThread)));
}

DsmemCell summarize(const CellSpec& s, const microbench::AtomicPathConfig& c, int sm_count, int warps_per_sm,
                    const std::vector<DsmemCounters>& runs) {
  std::vector<double> cycles, busy, duration, requests;
  for (const DsmemCounters& r : runs) {
    if (!(r.requests > 0) || !(r.cycles_active_avg > 0) || !(r.cycles_active_max > 0))
      throw std::runtime_error(fmt::format("DSMEM sweep: {} on {} bins: the DSMEM counters read no requests",
                                           enum_name(s.op), s.bins));
    cycles.push_back(r.cycles_active_avg * sm_count / r.requests);
    busy.push_back(r.busy_max / r.cycles_active_max);
    duration.push_back(r.duration_ns);
    requests.push_back(r.requests);
  }
  DsmemCell cell;
  cell.op = s.op;
  cell.bins = s.bins;
  cell.cluster_size = c.cluster_size;
  cell.warps_per_sm = warps_per_sm;
  cell.requests = median(requests);
  const SampleSummary per_request = atomq::summarize(cycles);
  cell.cycles_per_request = per_request.median;
  cell.cycles_min = per_request.min;
  cell.cycles_max = per_request.max;
  cell.repeat_spread = (cell.cycles_max - cell.cycles_min) / cell.cycles_per_request;
  cell.busy_fraction = median(busy);
  cell.duration_ns = median(duration);
  return cell;
}

}  // namespace

DsmemSection run_dsmem_sweep(microbench::AtomicPathBench& bench, int repeats, double target_launch_ms,
                             const DsmemCounterProbe& probe) {
  const auto begin = std::chrono::steady_clock::now();
  const DeviceInfo& d = bench.device();
  const int threads_per_sm = std::max(kThreads, d.max_warps_per_sm * 32);
  const int blocks_per_sm = std::max(1, threads_per_sm / kThreads);
  const int blocks = std::max(kClusterSize, d.sm_count * blocks_per_sm / kClusterSize * kClusterSize);
  const int warps_per_sm = blocks_per_sm * kThreads / 32;
  std::vector<microbench::AtomicPathConfig> configs;
  for (const CellSpec& s : kCells) {
    microbench::AtomicPathConfig c = config_of(s, blocks);
    c.per_thread = per_thread_for(bench, c, target_launch_ms);
    configs.push_back(c);
  }
  DsmemLaunchBatch batch;
  std::vector<int> lost(configs.size(), 0);
  for (int r = 0; r < repeats; ++r)
    for (size_t i = 0; i < configs.size(); ++i)
      batch.push_back([&bench, &configs, &lost, i] {
        if (!bench.run(configs[i]).exact) ++lost[i];
      });
  const std::vector<DsmemCounters> counters = probe(batch);
  if (counters.size() != batch.size())
    throw std::runtime_error(fmt::format("DSMEM sweep: {} launches, counters for {}", batch.size(), counters.size()));
  DsmemSection section;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (lost[i] > 0)
      throw std::runtime_error(fmt::format("DSMEM sweep: {} on {} bins lost updates", enum_name(kCells[i].op),
                                           kCells[i].bins));
    std::vector<DsmemCounters> runs;
    for (int r = 0; r < repeats; ++r) runs.push_back(counters[static_cast<size_t>(r) * configs.size() + i]);
    section.cells.push_back(summarize(kCells[i], configs[i], d.sm_count, warps_per_sm, runs));
    const DsmemCell& c = section.cells.back();
    spdlog::debug("DSMEM {} on {} bins: {:.3f} SM cycles per warp request, busy {:.0f}%, spread {:.2f}%",
                  enum_name(c.op), c.bins, c.cycles_per_request, 100.0 * c.busy_fraction, 100.0 * c.repeat_spread);
  }
  section.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return section;
}

}  // namespace atomq::calibration
