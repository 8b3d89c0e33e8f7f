// Lookups in the table's L2 section (l2_section.hpp).
#include "atomq/calibration/l2_section.hpp"

namespace atomq::calibration {

const L2Cell* L2Section::find(GlobalAtomicOp op, AddressSpread spread, int warps_per_sm) const {
  for (const L2Cell& cell : cells)
    if (cell.op == op && cell.spread == spread && cell.warps_per_sm == warps_per_sm) return &cell;
  return nullptr;
}

const L2Cell* L2Section::saturated(GlobalAtomicOp op, AddressSpread spread) const {
  const L2Cell* most = nullptr;
  for (const L2Cell& cell : cells)
    if (cell.op == op && cell.spread == spread && (most == nullptr || cell.warps_per_sm > most->warps_per_sm))
      most = &cell;
  return most;
}

}  // namespace atomq::calibration
