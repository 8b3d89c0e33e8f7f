// The bottleneck class of one atomic unit from its utilization, and which unit binds a kernel:
// the SM's shared atomic unit or the L2 slices' atomic units (docs/model.md, "The L2 queue").
#pragma once

#include <array>

#include "atomq/common/enum_names.hpp"
#include "atomq/model/rules.hpp"

namespace atomq::model {

enum class UtilizationClass { kSevere, kPotential, kNotAtomicBound, kInsufficientData };
constexpr std::array<EnumName<UtilizationClass>, 4> enum_names(UtilizationClass) {
  return {{{UtilizationClass::kSevere, "severe"},
           {UtilizationClass::kPotential, "potential"},
           {UtilizationClass::kNotAtomicBound, "not_atomic_bound"},
           {UtilizationClass::kInsufficientData, "insufficient_data"}}};
}

// The unit whose queue limits the kernel; kNone when neither reaches the potential class.
enum class BindingUnit { kSharedAtomicUnit, kL2AtomicUnit, kNone };
constexpr std::array<EnumName<BindingUnit>, 3> enum_names(BindingUnit) {
  return {{{BindingUnit::kSharedAtomicUnit, "shared_atomic_unit"},
           {BindingUnit::kL2AtomicUnit, "l2_atomic_unit"},
           {BindingUnit::kNone, "none"}}};
}

// The same thresholds for either unit: severe >= Rules::severe_utilization, potential >=
// Rules::potential_utilization.
inline UtilizationClass classify(double utilization, const Rules& rules) {
  if (utilization >= rules.severe_utilization) return UtilizationClass::kSevere;
  if (utilization >= rules.potential_utilization) return UtilizationClass::kPotential;
  return UtilizationClass::kNotAtomicBound;
}

// True when a is a worse bottleneck than b (severe > potential > the rest).
inline bool more_bound(UtilizationClass a, UtilizationClass b) {
  auto rank = [](UtilizationClass c) {
    return c == UtilizationClass::kSevere ? 2 : c == UtilizationClass::kPotential ? 1 : 0;
  };
  return rank(a) > rank(b);
}

}  // namespace atomq::model
