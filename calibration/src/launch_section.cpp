#include "atomq/calibration/launch_section.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

namespace atomq::calibration {

std::optional<double> LaunchSection::floor_ns(double blocks, double threads_per_block) const {
  int nearest = 0;
  double best = 0;
  for (const LaunchCell& c : cells) {
    const double d = std::abs(std::log2(c.threads_per_block / std::max(threads_per_block, 1.0)));
    if (nearest == 0 || d < best) nearest = c.threads_per_block, best = d;
  }
  if (nearest == 0) return std::nullopt;
  std::map<double, double> curve;  // blocks -> ns
  for (const LaunchCell& c : cells)
    if (c.threads_per_block == nearest) curve[static_cast<double>(c.blocks)] = c.duration_ns;
  if (blocks <= curve.begin()->first || curve.size() == 1) return curve.begin()->second;
  auto hi = curve.lower_bound(blocks);
  if (hi == curve.end()) hi = std::prev(curve.end());  // beyond the sweep: the last segment's slope
  const auto lo = std::prev(hi);
  const double slope = (hi->second - lo->second) / (hi->first - lo->first);
  return std::max(curve.begin()->second, lo->second + (blocks - lo->first) * slope);
}

}  // namespace atomq::calibration
