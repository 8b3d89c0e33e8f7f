#include "atomq/calibration/table_agreement.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace atomq::calibration {

namespace {

std::string cell_name(const Cell& c) {
  std::ostringstream out;
  out << "n=" << c.n << " e=" << c.e << " c=" << c.c << " " << enum_name(c.variant) << " " << to_string(c.pattern);
  return out.str();
}

}  // namespace

TableAgreement compare_tables(const ServiceTable& a, const ServiceTable& b) {
  TableAgreement out;
  std::vector<double> differences;
  for (const Cell& ca : a.cells) {
    if (ca.n < kSaturatedWarps) continue;
    const Cell* cb = b.find(ca.n, ca.e, ca.c, ca.variant, ca.pattern);
    if (cb == nullptr || ca.s <= 0 || cb->s <= 0) continue;
    const double difference = std::abs(ca.s - cb->s) / (0.5 * (ca.s + cb->s));
    differences.push_back(difference);
    if (difference > ca.spread + cb->spread) ++out.beyond_spread;
    if (difference >= out.max_difference) {
      out.max_difference = difference;
      out.worst_cell = cell_name(ca);
    }
  }
  out.cells = differences.size();
  if (!differences.empty()) {
    std::sort(differences.begin(), differences.end());
    const std::size_t mid = differences.size() / 2;
    out.median_difference =
        differences.size() % 2 ? differences[mid] : 0.5 * (differences[mid - 1] + differences[mid]);
  }
  return out;
}

bool same_gpu_model(const ServiceTable& a, const ServiceTable& b) {
  const DeviceInfo &da = a.provenance.device, &db = b.provenance.device;
  return da.name == db.name && da.chip == db.chip && da.sm_count == db.sm_count;
}

}  // namespace atomq::calibration
