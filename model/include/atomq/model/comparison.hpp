// Two kernels side by side (seed §6.2: Kernel A 1,024,000 ops, U 92%, e 28.7 vs Kernel B,
// U 68%, e 12.3) as a structured result the report renders.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "atomq/model/analysis.hpp"

namespace atomq::model {

struct ComparisonRow {
  std::string quantity;
  std::string unit;
  double a = 0;
  double b = 0;
  std::optional<double> ratio;  // b / a, absent when a is 0
};

// A's what-if with the largest gain against the gain measured from a to b (b taken as the change).
struct PredictedGain {
  WhatIfId id = WhatIfId::kCustom;
  std::string change;
  GainInterval interval;
  double measured = 0;  // time a / time b
  bool inside = false;  // measured within [interval.low, interval.high]
};

struct KernelComparison {
  std::string kernel_a, kernel_b;
  UtilizationClass class_a = UtilizationClass::kInsufficientData;
  UtilizationClass class_b = UtilizationClass::kInsufficientData;
  std::vector<ComparisonRow> rows;
  // "a", "b", "equal", or "unknown" when either could not be evaluated.
  std::string more_atomic_bound;
  std::optional<double> speedup_b_over_a;  // time a / time b
  std::optional<PredictedGain> predicted_gain;  // when a has a what-if and both have a duration
  std::vector<Finding> findings;           // e.g. a hidden memory bottleneck from a to b
  std::string summary;                     // one plain sentence
};

KernelComparison compare(const KernelAnalysis& a, const KernelAnalysis& b,
                         const Rules& rules = default_rules());

}  // namespace atomq::model
