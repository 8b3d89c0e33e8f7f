// Two tables of identical GPUs (calibrate --all-devices): how far their saturated cells'
// service times lie apart, against the repeat spread each table measured for those cells.
#pragma once

#include <cstddef>
#include <string>

#include "atomq/calibration/service_table.hpp"

namespace atomq::calibration {

// Warps in flight per SM from which a cell counts as saturated (the unit's queue is full;
// docs/calibration.md reports the repeat spread of the same cells).
inline constexpr int kSaturatedWarps = 8;

struct TableAgreement {
  std::size_t cells = 0;            // saturated cells present in both tables
  double max_difference = 0;        // max |S_a - S_b| / mean(S_a, S_b)
  double median_difference = 0;
  std::string worst_cell;           // "n=8 e=32 c=0 add distinct"
  std::size_t beyond_spread = 0;    // cells whose difference exceeds both tables' spreads added up
};

TableAgreement compare_tables(const ServiceTable& a, const ServiceTable& b);

// Whether two tables come from the same kind of GPU (name, chip, SM count): only those are
// expected to agree.
bool same_gpu_model(const ServiceTable& a, const ServiceTable& b);

}  // namespace atomq::calibration
