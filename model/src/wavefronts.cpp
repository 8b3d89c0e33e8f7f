#include "atomq/model/wavefronts.hpp"

#include <algorithm>
#include <cmath>

namespace atomq::model {

double serialized_lanes(const calibration::Pattern& p, double e) {
  if (p.same_address()) return std::max(1.0, e);
  // Small epsilon: e k / 32 that is an integer must not round up.
  if (p.conflict_degree > 1) return std::max(1.0, std::ceil(e * p.conflict_degree / 32.0 - 1e-9));
  return 1.0;
}

double expected_wavefronts(const calibration::Pattern& p, double e, double c,
                           calibration::OpVariant v) {
  const double lanes = serialized_lanes(p, e);
  const bool merged = p.same_address() && v == calibration::OpVariant::kPopcInc;
  const double alu = merged ? 1.0 : lanes;
  const double cas = 2.0 * lanes;
  return (1.0 - c) * alu + c * cas;
}

}  // namespace atomq::model
