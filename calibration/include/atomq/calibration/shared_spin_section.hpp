// The table's shared CAS-spin section: what one warp entry of a float or double add into shared
// memory costs an SM on a GPU where that add is a CAS loop (ATOMS.CAST.SPIN on sm_90), by the
// lanes of a warp on one word, the warps of a block on one word and the warps per SM, measured by
// atomq calibrate (docs/calibration.md, "The shared CAS-spin section"). The model prices a
// privatized float add with it (docs/model.md). Plain C++.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace atomq::calibration {

struct SharedSpinCell {
  int word_bytes = 4;      // 4 (float) or 8 (double)
  int lanes_per_word = 1;  // lanes of one warp instruction on one word
  int warps_per_word = 1;  // warps of a block on each word
  int warps_per_sm = 0;
  int iterations = 0;      // adds per lane of one launch
  double cycles_per_entry = 0;  // SM cycles per warp entry of the loop, per SM (median over repeats)
  double cycles_min = 0, cycles_max = 0;
  double repeat_spread = 0;     // (max - min) / median
};

struct SharedSpinSection {
  std::string created_utc;
  std::string atomq_commit;
  double wall_seconds = 0;
  std::vector<SharedSpinCell> cells;  // empty in tables calibrated before the sweep

  bool empty() const { return cells.empty(); }
  // SM cycles per warp entry: the cells of the word size and the calibrated lanes per word
  // nearest (log scale), log-log between the warps per word and linear between the warps per
  // SM (clamped to the ends); nullopt without a cell of that word size.
  std::optional<double> cycles_per_entry(int word_bytes, double lanes_per_word, double warps_per_word,
                                         double warps_per_sm) const;
};

}  // namespace atomq::calibration
