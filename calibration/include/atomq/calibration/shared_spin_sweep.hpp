// The shared CAS-spin part of a calibration: the float and double shared adds over lanes per
// word, warps per word and warps per SM, timed by the SMs' clocks (docs/calibration.md).
#pragma once

#include "atomq/calibration/shared_spin_section.hpp"

namespace atomq::microbench {
class SharedSpinBench;
}

namespace atomq::calibration {

// Every cell `repeats` times after one untimed launch.
SharedSpinSection run_shared_spin_sweep(microbench::SharedSpinBench& bench, int repeats);

}  // namespace atomq::calibration
