// What-if intervals: low = full overlap, high = no overlap, both capped by the memory floor.
// Expected values are computed here from the closed-form service time, not by the model.
#include <gtest/gtest.h>

#include <algorithm>

#include "atomq/model/analysis.hpp"
#include "atomq/model/comparison.hpp"
#include "model_fixture.hpp"

namespace atomq::model {
namespace {

using calibration::OpVariant;
using calibration::Pattern;
using test::ProfileSpec;

constexpr double kQueue = 32;

class GainIntervals : public ::testing::Test {
 protected:
  ServiceTimeModel model{test::make_h200_like_table()};

  // 32 lanes on one word (k = 32) keeping the unit busy a fraction u of the kernel.
  ProfileSpec conflicted(double u) const {
    ProfileSpec s;
    s.wavefronts_per_instruction = expected_wavefronts(Pattern{0}, 32, 0, OpVariant::kAdd);
    s.active_cycles_sum = test::cycles_for_utilization(
        s.instructions, test::oracle_s(kQueue, 32, 0, OpVariant::kAdd, Pattern{0}), u);
    return s;
  }
  const WhatIf& replication(const KernelAnalysis& a) const {
    const Finding* f = a.find(FindingKind::kHighUtilizationHighConflict);
    EXPECT_NE(f, nullptr);
    return f->what_ifs.front();
  }
  double s_ratio() const {  // S at k = 4 over S at k = 32
    return test::oracle_s(kQueue, 32, 0, OpVariant::kAdd, Pattern{4}) /
           test::oracle_s(kQueue, 32, 0, OpVariant::kAdd, Pattern{0});
  }
};

TEST_F(GainIntervals, HighEndIsTheNoOverlapPrediction) {
  const KernelAnalysis a = analyze(test::make_profile(conflicted(0.98)), model);
  const WhatIf& w = replication(a);
  ASSERT_TRUE(w.interval.evaluated);
  EXPECT_NEAR(w.interval.high, 1.0 / (1.0 - 0.98 + 0.98 * s_ratio()), 1e-6);
  EXPECT_DOUBLE_EQ(w.interval.high, w.speedup);
  EXPECT_LE(w.interval.low, w.interval.high);
}

TEST_F(GainIntervals, SaturatedUnitGivesANarrowInterval) {
  // U = 1: under full overlap the rest of the kernel may be as short as the counters allow;
  // without a memory floor both ends are the no-overlap prediction.
  const KernelAnalysis a = analyze(test::make_profile(conflicted(1.0)), model);
  const WhatIf& w = replication(a);
  EXPECT_NEAR(w.interval.low, w.interval.high, 1e-9);
  EXPECT_NEAR(w.interval.high, 1.0 / s_ratio(), 1e-6);
}

TEST_F(GainIntervals, UnitBelowSaturationLeavesTheRestOfTheKernelInPlace) {
  // U = 0.96 with the default tolerance 0.05: the rest takes (1 - 0.96) / 0.05 = 80% of the
  // kernel under full overlap, so the low end is 1 / 0.8.
  const KernelAnalysis a = analyze(test::make_profile(conflicted(0.96)), model);
  const WhatIf& w = replication(a);
  EXPECT_NEAR(w.interval.nonatomic_floor_fraction, 0.8, 1e-6);
  EXPECT_NEAR(w.interval.low, 1.25, 1e-6);
  // Far below saturation the rest took the whole kernel: no gain at the low end.
  Rules r = default_rules();
  r.high_conflict_utilization = 0.5;
  const KernelAnalysis b = analyze(test::make_profile(conflicted(0.6)), model, r);
  EXPECT_NEAR(replication(b).interval.low, 1.0, 1e-9);
  EXPECT_GT(replication(b).interval.high, 1.5);
}

TEST_F(GainIntervals, MemoryFloorCapsBothEnds) {
  ProfileSpec s = conflicted(1.0);
  s.dram_peak = 4e12;
  KernelProfile p = test::make_profile(s);
  const double duration_ns = *p.counter(metric::kDurationNs);
  // Reading the bytes takes half the kernel time: no change can gain more than 2x.
  p.counters[metric::kDramBytesRead] = 0.5 * duration_ns * 1e-9 * s.dram_peak;
  const KernelAnalysis a = analyze(p, model);  // the what-if lives in it
  const WhatIf& w = replication(a);
  ASSERT_TRUE(w.interval.memory_floor_ns);
  EXPECT_NEAR(*w.interval.memory_floor_ns, 0.5 * duration_ns, 1e-6 * duration_ns);
  EXPECT_NEAR(w.interval.high, 2.0, 1e-6);
  EXPECT_NEAR(w.interval.low, 2.0, 1e-6);
}

TEST_F(GainIntervals, ComparisonPutsTheMeasuredGainAgainstTheInterval) {
  const KernelProfile base = test::make_profile(conflicted(0.96));
  const KernelAnalysis a = analyze(base, model);
  // The comparison takes the what-if with the largest gain ("no conflicts", k -> 1).
  const WhatIf* best = nullptr;
  for (const Finding& f : a.findings)
    for (const WhatIf& w : f.what_ifs)
      if (w.interval.evaluated && (!best || w.interval.high > best->interval.high)) best = &w;
  ASSERT_NE(best, nullptr);
  EXPECT_GT(best->interval.high, replication(a).interval.high);
  const WhatIf& w = *best;
  for (double measured : {1.1, 2.25, w.interval.high * 1.5}) {
    KernelProfile fixed = test::make_profile(conflicted(0.96));
    fixed.kernel_name = "fixed";
    for (const char* c : {metric::kDurationNs, metric::kCyclesActiveSum, metric::kCyclesActiveAvg,
                          metric::kCyclesActiveMax})
      fixed.counters[c] = base.counters.at(c) / measured;
    const KernelComparison c = compare(a, analyze(fixed, model));
    ASSERT_TRUE(c.predicted_gain);
    EXPECT_EQ(c.predicted_gain->id, w.id);
    EXPECT_EQ(c.predicted_gain->change, w.change);
    EXPECT_NEAR(c.predicted_gain->measured, measured, 1e-9);
    EXPECT_EQ(c.predicted_gain->inside, measured >= w.interval.low && measured <= w.interval.high) << measured;
  }
}

}  // namespace
}  // namespace atomq::model
