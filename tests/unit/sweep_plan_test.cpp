#include "atomq/common/statistics.hpp"
#include "atomq/calibration/sweep_plan.hpp"

#include <gtest/gtest.h>

#include "atomq/calibration/calibrator.hpp"

namespace cal = atomq::calibration;

TEST(SweepPlan, FullGridCoversTheRequiredAxes) {
  const cal::SweepPlan p = cal::make_sweep_plan(cal::GridSize::kFull, 64);
  EXPECT_EQ(p.axes.n.front(), 1);
  EXPECT_EQ(p.axes.n.back(), 64);
  EXPECT_EQ(p.axes.e.front(), 1);
  EXPECT_EQ(p.axes.e.back(), 32);
  EXPECT_DOUBLE_EQ(p.axes.c.front(), 0.0);
  EXPECT_DOUBLE_EQ(p.axes.c.back(), 1.0);
  // distinct, every k = 2..32, same address
  ASSERT_EQ(p.axes.patterns.size(), 7u);
  EXPECT_EQ(p.axes.patterns.front().conflict_degree, 1);
  EXPECT_EQ(p.axes.patterns[5].conflict_degree, 32);
  EXPECT_TRUE(p.axes.patterns.back().same_address());
  EXPECT_EQ(p.cell_count(), p.axes.n.size() * 7 * 5 * 2 * 7);
  EXPECT_GE(p.repeats, 5);
}

TEST(SweepPlan, QuickIsASubsetOfFull) {
  const cal::SweepPlan q = cal::make_sweep_plan(cal::GridSize::kQuick, 64);
  const cal::SweepPlan f = cal::make_sweep_plan(cal::GridSize::kFull, 64);
  EXPECT_LT(q.cell_count(), f.cell_count() / 10);
  for (int n : q.axes.n) EXPECT_NE(std::find(f.axes.n.begin(), f.axes.n.end(), n), f.axes.n.end());
  for (int e : q.axes.e) EXPECT_NE(std::find(f.axes.e.begin(), f.axes.e.end(), e), f.axes.e.end());
}

TEST(SweepPlan, NIsClampedToTheDevice) {
  const cal::SweepPlan p = cal::make_sweep_plan(cal::GridSize::kFull, 48);
  EXPECT_EQ(p.axes.n.back(), 48);
  for (int n : p.axes.n) EXPECT_LE(n, 48);
  const cal::SweepPlan small = cal::make_sweep_plan(cal::GridSize::kFull, 40);
  EXPECT_EQ(small.axes.n.back(), 40);  // 2 blocks of 20 warps
}

TEST(SweepPlan, AtomicsPerWarpKeepEachSmBusy) {
  const cal::SweepPlan p = cal::make_sweep_plan(cal::GridSize::kFull, 64);
  for (int n : p.axes.n) {
    const int apw = p.atomics_per_warp(n);
    EXPECT_EQ(apw % 32, 0);
    EXPECT_GE(static_cast<long long>(apw) * n, p.min_insts_per_sm);
    EXPECT_GE(apw, p.min_atomics_per_warp);
  }
}

TEST(Statistics, MedianAndQuantile) {
  EXPECT_DOUBLE_EQ(atomq::median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(atomq::median({4.0, 1.0, 2.0, 3.0}), 2.5);
  EXPECT_DOUBLE_EQ(atomq::quantile({0.0, 10.0}, 0.9), 9.0);
  EXPECT_THROW(atomq::median({}), std::invalid_argument);
}

TEST(SweepPlan, L2GridCoversEveryOpAndSpreadUpToTheDevice) {
  const cal::SweepPlan f = cal::make_sweep_plan(cal::GridSize::kFull, 64);
  EXPECT_EQ(f.l2.ops, atomq::enum_values<atomq::GlobalAtomicOp>());
  EXPECT_EQ(f.l2.ops.size(), atomq::kGlobalAtomicOpTraits.size());
  EXPECT_EQ(f.l2.spreads.size(), 4u);
  EXPECT_EQ(f.l2.warps_per_sm, (std::vector<int>{4, 16, 32, 64}));
  // The spread cells, then the law sweep: 13 hot-word counts x 3 patterns per op, and the
  // dependent chains of 2 ops over 7 warp counts and 3 lane counts (1, 8, 32 lanes each its own line).
  EXPECT_EQ(f.l2.hot_addresses.size(), 13u);
  EXPECT_EQ(f.l2.latency_lanes, (std::vector<int>{1, 8, 32}));
  // Then the word-lane sweep: 3 ops x 6 lanes-per-word counts x 2 layouts over 65536 words.
  EXPECT_EQ(f.l2.lanes_per_word, (std::vector<int>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(f.l2.word_lane_hot_addresses, 1 << 16);
  EXPECT_EQ(f.l2.cell_count(),
            f.l2.ops.size() * 4u * 4u + f.l2.ops.size() * 13u * 3u + 2u * 7u * 3u + 3u * 6u * 2u);
  const cal::SweepPlan q = cal::make_sweep_plan(cal::GridSize::kQuick, 64);
  EXPECT_EQ(q.l2.warps_per_sm, (std::vector<int>{8, 64}));
  EXPECT_LT(q.l2.target_launch_ms, f.l2.target_launch_ms);
  const cal::SweepPlan small = cal::make_sweep_plan(cal::GridSize::kFull, 48);
  EXPECT_EQ(small.l2.warps_per_sm, (std::vector<int>{4, 16, 32, 48}));
}
