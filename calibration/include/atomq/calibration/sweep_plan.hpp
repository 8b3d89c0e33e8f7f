// The calibration grid: named axes (nvbench style) for the quick and the full sweep.
#pragma once

#include <string>

#include "atomq/calibration/service_table.hpp"

namespace atomq::calibration {

enum class GridSize { kQuick, kFull };

// The L2 part of a sweep: every (op, spread, warps_per_sm) of global atomics.
struct L2SweepPlan {
  std::vector<GlobalAtomicOp> ops;
  std::vector<AddressSpread> spreads;
  std::vector<int> warps_per_sm;
  // Each cell's launch is sized to about this long (L2AtomicStreamBench::atomics_per_thread_for):
  // long enough that launch overhead stays under 1% of a repeat.
  double target_launch_ms = 1.0;

  // The law sweep: each op at the most warps per SM over hot_addresses, one word per line and
  // packed, all lanes and (one per line) one lane; then dependent chains of the latency ops
  // over latency_warps and latency_lanes (one request per lane, each lane its own line): the
  // round trip against the requests each SM keeps in flight (Little's law).
  std::vector<int> hot_addresses;
  std::vector<GlobalAtomicOp> latency_ops;
  std::vector<int> latency_warps;
  std::vector<int> latency_lanes;
  int law_repeats = 3;
  // The word-lane sweep: word_lane_ops at the most warps per SM, all lanes, lanes_per_word
  // neighbouring lanes on each of word_lane_hot_addresses words, one word per line and packed.
  std::vector<GlobalAtomicOp> word_lane_ops;
  std::vector<int> lanes_per_word;
  int word_lane_hot_addresses = 0;

  size_t cell_count() const {
    return ops.size() * spreads.size() * warps_per_sm.size() + ops.size() * hot_addresses.size() * 3 +
           latency_ops.size() * latency_warps.size() * latency_lanes.size() +
           word_lane_ops.size() * lanes_per_word.size() * 2;
  }
};

struct SweepPlan {
  std::string name;
  Axes axes;
  int repeats = 5;
  // Atomics each warp issues: enough that one SM sees >= min_insts_per_sm instructions.
  int min_atomics_per_warp = 512;
  long long min_insts_per_sm = 16384;
  L2SweepPlan l2;

  size_t cell_count() const {
    return axes.n.size() * axes.e.size() * axes.c.size() * axes.variants.size() *
           axes.patterns.size();
  }
  int atomics_per_warp(int n) const;
};

// The grid for a device with max_warps_per_sm warps per SM (n values above it are dropped;
// n above 32 must split into equal blocks of at most 32 warps; the same holds for the L2
// sweep's warps_per_sm).
SweepPlan make_sweep_plan(GridSize size, int max_warps_per_sm);

}  // namespace atomq::calibration
