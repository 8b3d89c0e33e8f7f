// How many data-stage wavefronts one warp-level shared atomic takes for a calibration
// address pattern: the bridge between the table's pattern axis and the measured k.
#pragma once

#include "atomq/calibration/service_table.hpp"

namespace atomq::model {

// Wavefronts per warp instruction that pattern p produces with e active lanes and CAS share
// c (as the H200 counters show, docs/model.md): lanes sharing a bank on different words are serialized
// (k-way conflict with e lanes: max(1, ceil(e k / 32))); lanes on one word merge for
// ATOMS.POPC.INC and are serialized for ATOMS.ADD; ATOMS.CAS takes two wavefronts per
// serialized lane (CAS on one word: 2 e).
// Lanes of one warp instruction that the unit handles one after another: 1 for distinct
// banks, max(1, ceil(e k / 32)) for a k-way bank conflict, e for one word (before merging).
double serialized_lanes(const calibration::Pattern& p, double e);

double expected_wavefronts(const calibration::Pattern& p, double e, double c,
                           calibration::OpVariant v);

}  // namespace atomq::model
