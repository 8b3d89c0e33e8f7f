#include "atomq/calibration/sweep_plan.hpp"

#include <algorithm>

namespace atomq::calibration {

namespace {

bool n_is_launchable(int n, int max_warps_per_sm) {
  if (n < 1 || n > max_warps_per_sm) return false;
  const int blocks = (n + 31) / 32;
  return n % blocks == 0;
}

}  // namespace

int SweepPlan::atomics_per_warp(int n) const {
  long long per_warp = std::max<long long>(min_atomics_per_warp, (min_insts_per_sm + n - 1) / n);
  per_warp = (per_warp + 31) / 32 * 32;
  return static_cast<int>(per_warp);
}

SweepPlan make_sweep_plan(GridSize size, int max_warps_per_sm) {
  SweepPlan plan;
  std::vector<int> n_values;
  if (size == GridSize::kQuick) {
    plan.name = "quick";
    n_values = {1, 8, 32, 64};
    plan.axes.e = {1, 8, 32};
    plan.axes.c = {0.0, 0.5, 1.0};
    plan.axes.patterns = {Pattern{1}, Pattern{32}, Pattern{0}};
  } else {
    plan.name = "full";
    n_values = {1, 2, 4, 8, 12, 16, 24, 32, 48, 64};
    plan.axes.e = {1, 2, 4, 8, 16, 24, 32};
    plan.axes.c = {0.0, 0.25, 0.5, 0.75, 1.0};
    plan.axes.patterns = {Pattern{1},  Pattern{2},  Pattern{4}, Pattern{8},
                          Pattern{16}, Pattern{32}, Pattern{0}};
  }
  plan.axes.variants = {OpVariant::kPopcInc, OpVariant::kAdd};
  for (int n : n_values)
    if (n_is_launchable(n, max_warps_per_sm)) plan.axes.n.push_back(n);
  if (plan.axes.n.empty() || plan.axes.n.back() != max_warps_per_sm) {
    if (n_is_launchable(max_warps_per_sm, max_warps_per_sm) &&
        (plan.axes.n.empty() || plan.axes.n.back() < max_warps_per_sm))
      plan.axes.n.push_back(max_warps_per_sm);
  }
  return plan;
}

}  // namespace atomq::calibration
