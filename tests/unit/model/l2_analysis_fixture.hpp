// What the L2 queue and L2 what-if tests share: the test table with its synthetic L2 section,
// and the what-if of a given id.
#pragma once

#include <string>

#include "atomq/model/analysis.hpp"
#include "l2_fixture.hpp"
#include "model_fixture.hpp"

namespace atomq::test {

constexpr double kL2ClockMhz = 1980;  // the synthetic L2 section's clock

inline calibration::ServiceTable make_h200_like_table_with_l2() {
  calibration::ServiceTable t = make_h200_like_table();
  t.l2 = make_synthetic_l2_section();
  return t;
}

inline const model::WhatIf* what_if_with(const model::Finding& f, model::WhatIfId id) {
  for (const model::WhatIf& w : f.what_ifs)
    if (w.id == id) return &w;
  return nullptr;
}

inline const model::WhatIf* what_if_with(const model::KernelAnalysis& a, model::WhatIfId id) {
  for (const model::Finding& f : a.findings)
    if (const model::WhatIf* w = what_if_with(f, id)) return w;
  return nullptr;
}

}  // namespace atomq::test
