// Runs a sweep plan on one GPU and produces a service-time table with provenance.
#pragma once

#include <functional>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/calibration/sweep_plan.hpp"

namespace atomq::microbench {
class AtomicStreamBench;
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
};

ServiceTable run_calibration(microbench::AtomicStreamBench& bench, const SweepPlan& plan,
                             const CalibrationOptions& options);

}  // namespace atomq::calibration
