// The launch-floor sweep: block counts from one to many waves of the SMs, three block sizes.
#include "atomq/calibration/launch_sweep.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "atomq/common/statistics.hpp"
#include "atomq/microbench/launch_floor.hpp"

namespace atomq::calibration {

namespace {

constexpr int kThreadsPerBlock[] = {32, 256, 1024};
constexpr int kBlocksPerSm[] = {0, 1, 4, 16, 64, 256};  // 0: one block in all

}  // namespace

LaunchSection run_launch_sweep(const microbench::LaunchFloorBench& bench, int repeats, const DurationProbe& probe) {
  if (repeats < 1) throw std::invalid_argument("launch floor sweep: repeats must be at least 1");
  const auto begin = std::chrono::steady_clock::now();
  const long long sms = std::max(1, bench.device().sm_count);
  std::vector<LaunchCell> cells;
  LaunchBatch batch;
  for (int threads : kThreadsPerBlock)
    for (int per_sm : kBlocksPerSm) {
      LaunchCell c;
      c.threads_per_block = threads;
      c.blocks = per_sm == 0 ? 1 : per_sm * sms;
      cells.push_back(c);
      for (int r = 0; r < repeats + 1; ++r) batch.push_back(bench.launcher(c.blocks, threads));
    }
  const std::vector<double> ns = probe(batch);
  if (ns.size() != batch.size())
    throw std::runtime_error(fmt::format("launch floor sweep: {} launches made, {} timed", batch.size(), ns.size()));
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto first = ns.begin() + static_cast<std::ptrdiff_t>(i * (repeats + 1)) + 1;  // the untimed one skipped
    const SampleSummary s = summarize(std::vector<double>(first, first + repeats));
    if (!(s.min > 0)) throw std::runtime_error(fmt::format("launch floor sweep: a launch of {} x {} timed at {} ns",
                                                           cells[i].blocks, cells[i].threads_per_block, s.min));
    cells[i].duration_ns = s.median;
    cells[i].duration_min_ns = s.min;
    cells[i].duration_max_ns = s.max;
    cells[i].repeat_spread = (s.max - s.min) / s.median;
    spdlog::debug("launch floor {} blocks x {} threads: {:.0f} ns", cells[i].blocks, cells[i].threads_per_block,
                  s.median);
  }
  LaunchSection section;
  section.cells = std::move(cells);
  section.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return section;
}

}  // namespace atomq::calibration
