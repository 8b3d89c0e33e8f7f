// The load latency floor (docs/model.md, "The load latency floor"): Little's law on a kernel's
// global loads. With one load in flight per resident warp (a loop that uses each load before it
// issues the next), the loads take loads per warp x the calibrated round trip at the sectors the
// SM then keeps in flight, where the lines live (L1, L2 or DRAM, from the hit counters).
// Plain C++, a pure function of (profile, table section).
#pragma once

#include <optional>
#include <string>

#include "atomq/calibration/load_section.hpp"
#include "atomq/model/kernel_profile.hpp"

namespace atomq::model {

struct LoadLatencyFloor {
  bool evaluated = false;
  std::string not_evaluated_reason;  // empty when the kernel issues no global loads
  double load_instructions = 0;      // LDG warp instructions
  double resident_warps_per_sm = 0;  // achieved occupancy x the SM's warp slots
  double loads_per_warp = 0;         // LDG instructions / (SMs x resident warps)
  double l1_hit = 0;                 // share of L1 sectors that hit (their round trip is taken as 0)
  double l2_hit = 0;                 // share of the L2's read sectors it held (the rest from DRAM)
  double sectors_per_request = 0;    // L2 read sectors per LDG instruction that missed L1
  double sectors_in_flight_per_sm = 0;
  double round_trip_ns = 0;          // per LDG instruction: (1 - l1_hit) x (L2 and DRAM mix)
  std::optional<double> floor_ns;    // loads_per_warp x round_trip_ns
  std::string basis;
};

LoadLatencyFloor evaluate_load_latency(const KernelProfile& profile, const calibration::LoadSection* section);

}  // namespace atomq::model
