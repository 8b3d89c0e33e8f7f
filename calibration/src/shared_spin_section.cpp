#include "atomq/calibration/shared_spin_section.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace atomq::calibration {

namespace {

// y at x between the points of an ascending curve: linear or log-log; clamped to the ends.
double between(const std::map<double, double>& curve, double x, bool log_log) {
  if (x <= curve.begin()->first) return curve.begin()->second;
  if (x >= curve.rbegin()->first) return curve.rbegin()->second;
  auto hi = curve.lower_bound(x);
  auto lo = std::prev(hi);
  if (!log_log) return lo->second + (x - lo->first) / (hi->first - lo->first) * (hi->second - lo->second);
  const double f = std::log(x / lo->first) / std::log(hi->first / lo->first);
  return lo->second * std::pow(hi->second / lo->second, f);
}

}  // namespace

std::optional<double> SharedSpinSection::cycles_per_entry(int word_bytes, double lanes_per_word,
                                                          double warps_per_word, double warps_per_sm) const {
  int nearest = 0;
  double best = 0;
  for (const SharedSpinCell& c : cells) {
    if (c.word_bytes != word_bytes) continue;
    const double d = std::abs(std::log2(c.lanes_per_word / std::max(lanes_per_word, 1.0)));
    if (nearest == 0 || d < best) nearest = c.lanes_per_word, best = d;
  }
  if (nearest == 0) return std::nullopt;
  // Per warps-per-SM value: the curve over the warps per word, read at the kernel's.
  std::map<int, std::map<double, double>> by_warps;
  for (const SharedSpinCell& c : cells)
    if (c.word_bytes == word_bytes && c.lanes_per_word == nearest)
      by_warps[c.warps_per_sm][c.warps_per_word] = c.cycles_per_entry;
  std::map<double, double> at_word;
  for (const auto& [warps, curve] : by_warps) at_word[warps] = between(curve, std::max(1.0, warps_per_word), true);
  return between(at_word, warps_per_sm, false);
}

}  // namespace atomq::calibration
