// The launch-floor part of a calibration: an empty kernel over block counts and block sizes,
// each launch timed by the collector (docs/calibration.md, "The launch floor section").
#pragma once

#include <functional>
#include <vector>

#include "atomq/calibration/launch_section.hpp"

namespace atomq::microbench {
class LaunchFloorBench;
}

namespace atomq::calibration {

// Each function makes exactly one kernel launch; the probe returns each launch's
// gpu__time_duration in ns, in order (the caller supplies it: calibration cannot link the collector).
using LaunchBatch = std::vector<std::function<void()>>;
using DurationProbe = std::function<std::vector<double>(const LaunchBatch& launches)>;

// Every cell `repeats` times in one batch, after one untimed launch of each.
LaunchSection run_launch_sweep(const microbench::LaunchFloorBench& bench, int repeats, const DurationProbe& probe);

}  // namespace atomq::calibration
