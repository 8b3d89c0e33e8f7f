// The load round-trip part of a calibration: the dependent-load benchmark over residency, sectors
// per request and warps per SM, timed with CUDA events (docs/calibration.md).
#pragma once

#include "atomq/calibration/load_section.hpp"

namespace atomq::microbench {
class LoadChainBench;
}

namespace atomq::calibration {

// Every cell `repeats` times after one untimed launch, each launch about target_launch_ms.
LoadSection run_load_sweep(microbench::LoadChainBench& bench, int repeats, double target_launch_ms);

}  // namespace atomq::calibration
