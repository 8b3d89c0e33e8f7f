// What the L2 queue and L2 what-if tests share: the test table with its synthetic L2 section,
// and the what-if whose change starts with given words.
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

inline const model::WhatIf* what_if_starting(const model::Finding& f, const std::string& prefix) {
  for (const model::WhatIf& w : f.what_ifs)
    if (w.change.rfind(prefix, 0) == 0) return &w;
  return nullptr;
}

inline const model::WhatIf* what_if_starting(const model::KernelAnalysis& a, const std::string& prefix) {
  for (const model::Finding& f : a.findings)
    if (const model::WhatIf* w = what_if_starting(f, prefix)) return w;
  return nullptr;
}

}  // namespace atomq::test
