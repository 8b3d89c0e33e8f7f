#include "atomq/model/wavefronts.hpp"

#include <algorithm>
#include <cmath>

namespace atomq::model {

double expected_wavefronts(const calibration::Pattern& p, double e, double c,
                           calibration::OpVariant v) {
  double serialized_lanes = 1.0;
  if (p.same_address()) {
    serialized_lanes = std::max(1.0, e);
  } else if (p.conflict_degree > 1) {
    // Small epsilon: e k / 32 that is an integer must not round up.
    serialized_lanes = std::max(1.0, std::ceil(e * p.conflict_degree / 32.0 - 1e-9));
  }
  const bool merged = p.same_address() && v == calibration::OpVariant::kPopcInc;
  const double alu = merged ? 1.0 : serialized_lanes;
  const double cas = 2.0 * serialized_lanes;
  return (1.0 - c) * alu + c * cas;
}

}  // namespace atomq::model
