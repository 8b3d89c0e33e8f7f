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
enum class BindingUnit { kSharedAtomicUnit, kL2AtomicUnit, kDsmemPath, kNone };
constexpr std::array<EnumName<BindingUnit>, 4> enum_names(BindingUnit) {
  return {{{BindingUnit::kSharedAtomicUnit, "shared_atomic_unit"},
           {BindingUnit::kL2AtomicUnit, "l2_atomic_unit"},
           {BindingUnit::kDsmemPath, "dsmem_path"},
           {BindingUnit::kNone, "none"}}};
}

inline UtilizationClass classify(double utilization, double severe, double potential) {
  if (utilization >= severe) return UtilizationClass::kSevere;
  if (utilization >= potential) return UtilizationClass::kPotential;
  return UtilizationClass::kNotAtomicBound;
}

// The shared unit: severe >= Rules::severe_utilization, potential >= Rules::potential_utilization.
inline UtilizationClass classify(double utilization, const Rules& rules) {
  return classify(utilization, rules.severe_utilization, rules.potential_utilization);
}

// The L2 slices: the same severe mark, their own potential mark.
inline UtilizationClass classify_l2(double utilization, const Rules& rules) {
  return classify(utilization, rules.severe_utilization, rules.l2_potential_utilization);
}

// True when a is a worse bottleneck than b (severe > potential > the rest).
inline bool more_bound(UtilizationClass a, UtilizationClass b) {
  auto rank = [](UtilizationClass c) {
    return c == UtilizationClass::kSevere ? 2 : c == UtilizationClass::kPotential ? 1 : 0;
  };
  return rank(a) > rank(b);
}

}  // namespace atomq::model
