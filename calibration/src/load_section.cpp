#include "atomq/calibration/load_section.hpp"

#include <algorithm>
#include <cmath>

namespace atomq::calibration {

std::optional<double> LoadSection::round_trip_ns(LoadResidency residency, double sectors_per_request,
                                                 double sectors_in_flight) const {
  // The calibrated request size nearest the kernel's (on a log scale: 4, 8, 16, 32).
  int nearest = 0;
  double best = 0;
  for (const LoadCell& c : cells) {
    if (c.residency != residency) continue;
    const double d = std::abs(std::log2(c.sectors_per_request / std::max(sectors_per_request, 1.0)));
    if (nearest == 0 || d < best) nearest = c.sectors_per_request, best = d;
  }
  if (nearest == 0) return std::nullopt;
  std::vector<const LoadCell*> curve;
  for (const LoadCell& c : cells)
    if (c.residency == residency && c.sectors_per_request == nearest) curve.push_back(&c);
  std::sort(curve.begin(), curve.end(), [](const LoadCell* a, const LoadCell* b) { return a->warps_per_sm < b->warps_per_sm; });
  const double q = sectors_in_flight;
  if (q <= curve.front()->sectors_in_flight_per_sm()) return curve.front()->round_trip_ns;
  for (size_t i = 1; i < curve.size(); ++i) {
    const double q0 = curve[i - 1]->sectors_in_flight_per_sm(), q1 = curve[i]->sectors_in_flight_per_sm();
    if (q <= q1) {
      const double f = (q - q0) / (q1 - q0);
      return curve[i - 1]->round_trip_ns + f * (curve[i]->round_trip_ns - curve[i - 1]->round_trip_ns);
    }
  }
  return curve.back()->round_trip_ns;
}

}  // namespace atomq::calibration
