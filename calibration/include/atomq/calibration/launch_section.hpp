// The table's launch-floor section: the duration (gpu__time_duration, as the collector times
// every kernel) of an empty kernel by blocks and threads per block, measured by atomq calibrate
// (docs/calibration.md, "The launch floor section"). No kernel of that grid runs shorter, so
// the model floors every what-if's predicted time with it (docs/model.md). Plain C++.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace atomq::calibration {

struct LaunchCell {
  long long blocks = 1;
  int threads_per_block = 32;
  double duration_ns = 0;  // median over repeats
  double duration_min_ns = 0, duration_max_ns = 0;
  double repeat_spread = 0;  // (max - min) / median
};

struct LaunchSection {
  std::string created_utc;
  std::string atomq_commit;
  double wall_seconds = 0;
  std::vector<LaunchCell> cells;  // empty in tables calibrated before the sweep

  bool empty() const { return cells.empty(); }
  // The empty kernel's duration for a grid: the cells of the calibrated threads per block
  // nearest (log scale), linear between their block counts, the last segment's slope beyond
  // the largest and the smallest count's duration below it; nullopt without cells.
  std::optional<double> floor_ns(double blocks, double threads_per_block) const;
};

}  // namespace atomq::calibration
