// The CAS retry sweep (docs/calibration.md, "The CAS retry sweep"): a global CAS loop timed
// against the lanes that compete for each word, from one lane to thousands. Its points go into
// the table's L2 section; the model's retry law (model/src/cas_retry_law.cpp) is fitted to them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "atomq/calibration/l2_section.hpp"

namespace atomq::microbench {
class CasRetryBench;
}

namespace atomq::calibration {

// One series of the sweep: lanes per warp and words fixed, warps growing.
struct CasRetrySeries {
  int active_lanes = 32;
  int addresses = 1;
  std::vector<int> warps;
};

struct CasRetryPlan {
  std::vector<CasRetrySeries> series;
  int repeats = 3;
  double target_launch_ms = 0.5;      // each point's updates per lane sized to about this
  int max_lanes_per_address = 8192;   // beyond, one update per lane takes seconds (quadratic)
};

CasRetryPlan make_cas_retry_plan(int max_resident_warps);

// Every point of `plan` (warps above the bench's resident limit dropped); `point_done` gets
// each point's label.
std::vector<CasRetryPoint> run_cas_retry_sweep(microbench::CasRetryBench& bench, const CasRetryPlan& plan,
                                               const std::function<void(std::string)>& point_done);

}  // namespace atomq::calibration
