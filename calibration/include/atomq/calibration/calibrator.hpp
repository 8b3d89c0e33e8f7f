// Runs a sweep plan on one GPU and produces a service-time table with provenance.
#pragma once

#include <functional>
#include <string>

#include "atomq/calibration/l2_calibrator.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/calibration/sweep_plan.hpp"

namespace atomq::microbench {
class AtomicStreamBench;
class L2AtomicStreamBench;
}

namespace atomq::calibration {

struct CalibrationProgress {
  size_t done = 0;
  size_t total = 0;
  std::string current;  // label of the cell just measured
};
using ProgressCallback = std::function<void(const CalibrationProgress&)>;

struct CalibrationOptions {
  std::string chip;  // CUPTI chip name of the device ("" when unknown)
  ProgressCallback progress;
  L2CounterProbe l2_counters;  // required: the L2 section's counters (l2_calibrator.hpp)
  // The L2 sweep (profiled through CUPTI) before the shared sweep instead of after it:
  // `calibrate --all-devices` sets it for every other GPU, so that the processes' profiled
  // sweeps do not coincide (two of them side by side took as long as one after the other).
  bool l2_sweep_first = false;
};

// The shared-atomic sweep on `bench` and the L2 sweep on `l2_bench` (the same device), in the
// order CalibrationOptions::l2_sweep_first says.
ServiceTable run_calibration(microbench::AtomicStreamBench& bench,
                             microbench::L2AtomicStreamBench& l2_bench, const SweepPlan& plan,
                             const CalibrationOptions& options);

}  // namespace atomq::calibration
