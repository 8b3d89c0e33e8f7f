// The DSMEM part of a calibration: the atomic-path benchmark's two DSMEM cases at full
// occupancy, each cell's cost read from its launches' counters (docs/calibration.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "atomq/calibration/dsmem_section.hpp"

namespace atomq::microbench {
class AtomicPathBench;
}

namespace atomq::calibration {

// The counters of one launch (the collector's metric names are in model/metric_names.hpp).
struct DsmemCounters {
  double requests = 0;            // l1tex__t_requests_pipe_lsu_mem_dshared_op_{atom,redas}.sum
  double busy_max = 0;            // l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.max
  double cycles_active_max = 0;   // sm__cycles_active.max
  double cycles_active_avg = 0;   // sm__cycles_active.avg
  double duration_ns = 0;         // gpu__time_duration.sum
};

// Each function makes exactly one kernel launch; the probe returns each launch's counters in
// order (the caller supplies it: calibration cannot link the collector).
using DsmemLaunchBatch = std::vector<std::function<void()>>;
using DsmemCounterProbe = std::function<std::vector<DsmemCounters>(const DsmemLaunchBatch& launches)>;

// Measures every cell `repeats` times in one counter batch; each launch checked exactly.
DsmemSection run_dsmem_sweep(microbench::AtomicPathBench& bench, int repeats, double target_launch_ms,
                             const DsmemCounterProbe& probe);

}  // namespace atomq::calibration
