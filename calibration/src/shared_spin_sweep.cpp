// The shared CAS-spin sweep: a fixed number of adds per lane, long enough that the launch and
// the block's start are a small part of the clocked stream.
#include "atomq/calibration/shared_spin_sweep.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "atomq/common/statistics.hpp"
#include "atomq/microbench/shared_spin.hpp"

namespace atomq::calibration {

namespace {

constexpr int kWarpsPerSm[] = {4, 8, 16, 32, 48, 64};
constexpr int kWarpsPerWord[] = {1, 2, 4, 8, 16};
constexpr int kLanesPerWord[] = {1, 2, 4, 8, 16, 32};
constexpr int kIterations = 256;
constexpr int kMaxWarpsPerBlock = 16;

SharedSpinCell measure(microbench::SharedSpinBench& bench, const microbench::SharedSpinConfig& c, int repeats) {
  std::vector<double> cycles;
  for (const microbench::SharedSpinSample& s : bench.run(c, repeats)) {
    if (!s.exact)
      throw std::runtime_error(fmt::format("shared spin sweep: {}-byte adds, {} lanes and {} warps per word, {} warps "
                                           "per SM: the words sum to {:.0f}, not the {:.0f} adds made",
                                           c.wide ? 8 : 4, c.lanes_per_word, c.warps_per_word, c.warps_per_sm, s.sum,
                                           s.expected));
    cycles.push_back(s.cycles_per_entry);
  }
  SharedSpinCell cell;
  cell.word_bytes = c.wide ? 8 : 4;
  cell.lanes_per_word = c.lanes_per_word;
  cell.warps_per_word = c.warps_per_word;
  cell.warps_per_sm = c.warps_per_sm;
  cell.iterations = c.iterations;
  const SampleSummary r = summarize(cycles);
  cell.cycles_per_entry = r.median;
  cell.cycles_min = r.min;
  cell.cycles_max = r.max;
  cell.repeat_spread = (r.max - r.min) / r.median;
  return cell;
}

}  // namespace

SharedSpinSection run_shared_spin_sweep(microbench::SharedSpinBench& bench, int repeats) {
  const auto begin = std::chrono::steady_clock::now();
  SharedSpinSection section;
  for (bool wide : {false, true})
    for (int lanes : kLanesPerWord)
      for (int warps : kWarpsPerSm) {
        if (warps > bench.device().max_warps_per_sm) continue;
        for (int per_word : kWarpsPerWord) {
          if (per_word > std::min(warps, kMaxWarpsPerBlock)) continue;
          const microbench::SharedSpinConfig c{wide, lanes, per_word, warps, kIterations};
          section.cells.push_back(measure(bench, c, repeats));
          spdlog::debug("shared spin {}-byte adds, {} lanes and {} warps per word, {} warps per SM: {:.2f} cycles per "
                        "warp entry", section.cells.back().word_bytes, lanes, per_word, warps,
                        section.cells.back().cycles_per_entry);
        }
      }
  section.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return section;
}

}  // namespace atomq::calibration
