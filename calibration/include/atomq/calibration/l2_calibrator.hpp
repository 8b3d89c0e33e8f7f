// The L2 part of a calibration: every (op, spread, warps_per_sm) cell of a sweep plan measured
// with the L2 atomic-stream benchmark, its service time read from each repeat's L2 counters.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "atomq/calibration/l2_section.hpp"
#include "atomq/calibration/sweep_plan.hpp"

namespace atomq::microbench {
class L2AtomicStreamBench;
}

namespace atomq::calibration {

// The L2 counters of one kernel launch (the collector's metric names are in
// model/include/atomq/model/metric_names.hpp; the caller maps them onto these fields).
struct L2Counters {
  double red_requests = 0;        // lts__t_requests_op_red.sum
  double red_requests_max = 0;    // lts__t_requests_op_red.max (the hottest slice)
  double atom_requests = 0;       // lts__t_requests_op_atom.sum
  double atom_requests_max = 0;   // lts__t_requests_op_atom.max
  double cycles_elapsed_max = 0;  // lts__cycles_elapsed.max
  double cycles_elapsed_sum = 0;  // lts__cycles_elapsed.sum
  double atomic_busy_max = 0;     // lts__d_atomic_input_cycles_active.max
  double duration_ns = 0;         // gpu__time_duration.sum
  double red_sectors = 0;         // lts__t_sectors_op_red.sum
  double atom_sectors = 0;        // lts__t_sectors_op_atom.sum
};

// Each function of a batch makes exactly one kernel launch; the probe runs them all under a
// counter collector and returns each launch's counters, in order. The calibration library
// cannot link the collector (tools/check_layering.py), so its caller supplies this.
using L2LaunchBatch = std::vector<std::function<void()>>;
using L2CounterProbe = std::function<std::vector<L2Counters>(const L2LaunchBatch& launches)>;

// Measures every cell of `plan`: one counter batch per op holding `repeats` rounds over its
// cells, S per repeat from that launch's own L2 cycles; `cell_done` gets each cell's label.
// wall_seconds is the sweep's own time.
L2Section run_l2_sweep(microbench::L2AtomicStreamBench& bench, const L2SweepPlan& plan,
                       int repeats, const L2CounterProbe& probe,
                       const std::function<void(std::string)>& cell_done);

}  // namespace atomq::calibration
