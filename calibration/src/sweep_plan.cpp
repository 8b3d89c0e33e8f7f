#include "atomq/calibration/sweep_plan.hpp"

#include <algorithm>

namespace atomq::calibration {

namespace {

bool n_is_launchable(int n, int max_warps_per_sm) {
  if (n < 1 || n > max_warps_per_sm) return false;
  const int blocks = (n + 31) / 32;
  return n % blocks == 0;
}

// Every op and spread; warps per SM from few (latency-bound) to the device's most (saturated).
L2SweepPlan make_l2_sweep_plan(GridSize size, int max_warps_per_sm) {
  L2SweepPlan l2;
  l2.ops = enum_values<GlobalAtomicOp>();
  l2.spreads = enum_values<AddressSpread>();
  const std::vector<int> warps = size == GridSize::kQuick ? std::vector<int>{8, 64}
                                                          : std::vector<int>{4, 16, 32, 64};
  for (int w : warps)
    if (n_is_launchable(w, max_warps_per_sm)) l2.warps_per_sm.push_back(w);
  if ((l2.warps_per_sm.empty() || l2.warps_per_sm.back() < max_warps_per_sm) &&
      n_is_launchable(max_warps_per_sm, max_warps_per_sm))
    l2.warps_per_sm.push_back(max_warps_per_sm);
  l2.target_launch_ms = size == GridSize::kQuick ? 0.5 : 1.0;
  l2.hot_addresses = size == GridSize::kQuick ? std::vector<int>{1, 4, 32, 256, 4096}
                                              : std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  l2.latency_ops = {GlobalAtomicOp::kAtomAddU32, GlobalAtomicOp::kAtomCasU32};
  for (int w : {1, 2, 4, 8, 16, 32, 64})
    if (n_is_launchable(w, max_warps_per_sm)) l2.latency_warps.push_back(w);
  l2.latency_lanes = size == GridSize::kQuick ? std::vector<int>{1, 32} : std::vector<int>{1, 8, 32};
  // A histogram's op, a scatter-add's and a returning add; as many words as the bench holds,
  // so that the slices stay even (4096 packed words would sit on 128 lines).
  l2.word_lane_ops = size == GridSize::kQuick
                         ? std::vector<GlobalAtomicOp>{GlobalAtomicOp::kRedAddU32}
                         : std::vector<GlobalAtomicOp>{GlobalAtomicOp::kRedAddU32, GlobalAtomicOp::kRedAddF32,
                                                       GlobalAtomicOp::kAtomAddU32};
  l2.lanes_per_word = size == GridSize::kQuick ? std::vector<int>{1, 8, 32} : std::vector<int>{1, 2, 4, 8, 16, 32};
  l2.word_lane_hot_addresses = 1 << 16;  // the L2 bench's most (kL2MaxHotAddresses)
  return l2;
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
  plan.l2 = make_l2_sweep_plan(size, max_warps_per_sm);
  return plan;
}

}  // namespace atomq::calibration
