#include "atomq/calibration/dsmem_section.hpp"

#include <algorithm>

namespace atomq::calibration {

const DsmemCell* DsmemSection::fastest(DsmemOp op) const {
  const DsmemCell* best = nullptr;
  for (const DsmemCell& c : cells)
    if (c.op == op && (!best || c.cycles_per_request < best->cycles_per_request)) best = &c;
  return best;
}

double DsmemSection::saturated_busy_fraction(DsmemOp op) const {
  double most = 0;
  for (const DsmemCell& c : cells)
    if (c.op == op) most = std::max(most, c.busy_fraction);
  return most;
}

}  // namespace atomq::calibration
