// The table's load round-trip section: how long a global load takes to return when every warp of
// every SM keeps one in flight, by where its lines live (L2 or DRAM), the sectors one warp's load
// asks for and the warps per SM, measured by atomq calibrate (docs/calibration.md, "The load
// round-trip section"). The model's load latency floor reads it (docs/model.md). Plain C++.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "atomq/common/enum_names.hpp"

namespace atomq::calibration {

enum class LoadResidency { kL2, kDram };
constexpr std::array<EnumName<LoadResidency>, 2> enum_names(LoadResidency) {
  return {{{LoadResidency::kL2, "l2"}, {LoadResidency::kDram, "dram"}}};
}

struct LoadCell {
  LoadResidency residency = LoadResidency::kDram;
  int sectors_per_request = 0;  // 4, 8, 16 (coalesced 4-, 8-, 16-byte lanes) or 32 (a line per lane)
  int warps_per_sm = 0;         // each with one load in flight
  int steps = 0;                // dependent loads per lane of one launch
  double round_trip_ns = 0;     // launch time / steps (median over repeats)
  double round_trip_min_ns = 0, round_trip_max_ns = 0;
  double repeat_spread = 0;     // (max - min) / median
  // Sectors in flight per SM: warps_per_sm x sectors_per_request, the load Little's law sees.
  double sectors_in_flight_per_sm() const { return static_cast<double>(warps_per_sm) * sectors_per_request; }
};

struct LoadSection {
  // The run that measured the section: the table's own, unless it was added to a table of an
  // earlier run (docs/calibration.md).
  std::string created_utc;
  std::string atomq_commit;
  double wall_seconds = 0;
  std::vector<LoadCell> cells;  // empty in tables calibrated before the load sweep

  bool empty() const { return cells.empty(); }
  // The round trip at `sectors_in_flight` per SM for lines in `residency`, linear between the
  // calibrated loads of the cells with the nearest sectors per request (clamped to the ends);
  // nullopt when the section has no cell of that residency.
  std::optional<double> round_trip_ns(LoadResidency residency, double sectors_per_request,
                                      double sectors_in_flight) const;
};

}  // namespace atomq::calibration
