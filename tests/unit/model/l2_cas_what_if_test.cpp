// The L2 what-ifs that change what a warp sends (docs/model.md, "The L2 queue"): load before
// CAS for CAS-heavy traffic, lock-free for a global CAS spin lock, warp aggregation of the hot
// slice's lanes. Expectations are computed here from the analysis' own L2 figures.
#include <gtest/gtest.h>

#include <cmath>

#include "atomq/model/analysis.hpp"
#include "l2_analysis_fixture.hpp"

namespace atomq::model {
namespace {

using test::kL2ClockMhz;
using test::L2Spec;
using test::what_if_with;

class L2CasWhatIf : public ::testing::Test {
 protected:
  ServiceTimeModel model{test::make_h200_like_table_with_l2()};

  static KernelProfile global_only(double duration_ns, const L2Spec& l2) {
    KernelProfile p = test::make_profile(test::ProfileSpec{});
    p.counters[metric::kSharedAtomInst] = 0;
    p.counters[metric::kSharedAtomInstAlu] = 0;
    p.counters[metric::kSharedAtomInstCas] = 0;
    p.counters[metric::kSharedAtomWavefronts] = 0;
    p.counters[metric::kDurationNs] = duration_ns;
    test::add_l2_counters(p, l2);
    p.launch.grid = {1056, 1, 1};
    p.launch.max_active_blocks_per_sm = 8;
    return p;
  }

  // A hash build probing with CAS: CAS on spread lines plus one RED per insert; `cycles` L2
  // cycles of elapsed time set U.
  static KernelProfile cas_probe(double elapsed_cycles, std::optional<double> inserts) {
    L2Spec l2;
    l2.atom = l2.cas = 9.0e6;
    l2.atom_hottest = 1.0e5;
    l2.red = 6.0e6;
    l2.red_hottest = 0.6e5;
    l2.elapsed_cycles = elapsed_cycles;
    l2.warp_instructions = 1.0e6;
    KernelProfile p = global_only(elapsed_cycles / kL2ClockMhz * 1000, l2);
    p.global_atomic_op = GlobalAtomicOp::kAtomCasU32;
    p.useful_updates = inserts;
    return p;
  }

  // One lane per warp spins on a global lock: CAS to one address, one atomicExch per release.
  static KernelProfile spin_lock(double cas, double updates) {
    L2Spec l2;
    l2.cas = cas;
    l2.atom = cas + 5.0e4;
    l2.atom_hottest = 0.67 * l2.atom;
    l2.elapsed_cycles = l2.atom_hottest * 4.0;  // the synthetic one-address CAS S
    l2.warp_instructions = l2.atom;
    KernelProfile p = global_only(l2.elapsed_cycles / kL2ClockMhz * 1000, l2);
    p.counters[metric::kGlobalRedInst] = 0;
    p.counters[metric::kGlobalAtomInst] = l2.atom;
    p.global_atomic_op = GlobalAtomicOp::kAtomCasU32;
    p.useful_updates = updates;
    return p;
  }
};

// The high end removes every CAS at the hottest slice; the low end keeps one per insert.
TEST_F(L2CasWhatIf, CasProbeGetsLoadBeforeCasBetweenOneCasPerUpdateAndNone) {
  const KernelProfile p = cas_probe(1.6e5 * 2.2 / 0.9, 4.0e6);  // U ~0.9 at the synthetic many-lines CAS cell (2.2 cycles)
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.l2.evaluated);
  const WhatIf* w = what_if_with(a, WhatIfId::kLoadBeforeCas);
  ASSERT_NE(w, nullptr);
  const double T = *p.counter(metric::kDurationNs);
  const double u = std::min(1.0, a.l2.utilization);
  const double hottest = a.l2.inputs.requests_hottest_slice, hot_cas = hottest * a.l2.inputs.cas_share;
  const double high = T / (T * (1 - u) + u * T * (hottest - hot_cas) / hottest);
  EXPECT_NEAR(w->interval.high, high, 1e-6 * high);
  const double kept = hot_cas * 4.0e6 / 9.0e6;
  ASSERT_TRUE(w->least_change_time_ns);
  EXPECT_NEAR(*w->least_change_time_ns, T * (1 - u) + u * T * (hottest - hot_cas + kept) / hottest, 1e-6 * T);
  EXPECT_LE(w->interval.low, w->interval.high);
  EXPECT_DOUBLE_EQ(w->interval.low, 1.0) << "U below 1 - tolerance: the rest may have run the whole time";
}

TEST_F(L2CasWhatIf, SaturatedCasProbeTakesItsLowEndFromOneCasPerUpdate) {
  const KernelProfile p = cas_probe(1.6e5 * 2.2 / 1.2, 4.0e6);  // requests x S 20% above the time
  const KernelAnalysis a = analyze(p, model);
  const WhatIf* w = what_if_with(a, WhatIfId::kLoadBeforeCas);
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->least_change_time_ns);
  const double T = *p.counter(metric::kDurationNs);
  EXPECT_NEAR(w->interval.low, T / *w->least_change_time_ns, 1e-9);
  EXPECT_GT(w->interval.low, 1.05);
  EXPECT_GT(w->interval.high, w->interval.low);
}

TEST_F(L2CasWhatIf, WithoutUsefulUpdatesOrWithRequestsBeyondTheTimeTheLowEndIsNoGain) {
  const KernelAnalysis unknown = analyze(cas_probe(1.6e5 * 2.2 / 1.2, std::nullopt), model);
  const WhatIf* w = what_if_with(unknown, WhatIfId::kLoadBeforeCas);
  ASSERT_NE(w, nullptr);
  EXPECT_DOUBLE_EQ(w->interval.low, 1.0);
  EXPECT_NE(w->basis.find("no useful-update count"), std::string::npos) << w->basis;
  // requests x S twice the time: S overstates these requests, the counters do not show binding
  const KernelAnalysis over = analyze(cas_probe(1.6e5 * 2.2 / 2.0, 4.0e6), model);
  const WhatIf* v = what_if_with(over, WhatIfId::kLoadBeforeCas);
  ASSERT_NE(v, nullptr);
  EXPECT_GT(over.l2.request_utilization, 1.5);
  EXPECT_DOUBLE_EQ(v->interval.low, 1.0);
  EXPECT_NE(v->interval.basis.find("do not show that it bound"), std::string::npos) << v->interval.basis;
  EXPECT_GT(v->interval.high, 1.05);
}

TEST_F(L2CasWhatIf, FewCasRequestsGetNoLoadBeforeCas) {
  KernelProfile p = cas_probe(1.6e5 * 2.2 / 0.9, 4.0e6);
  p.counters[metric::kL2CasRequests] = 1.0e6;  // 1 of 15 M requests
  const KernelAnalysis a = analyze(p, model);
  EXPECT_EQ(what_if_with(a, WhatIfId::kLoadBeforeCas), nullptr);
}

// A spin lock: lock-free between one native atomic per update (low) and one per release (high).
TEST_F(L2CasWhatIf, SpinLockGetsLockFreeBetweenOneAtomicPerUpdateAndOnePerRelease) {
  const KernelProfile p = spin_lock(5.0e8, 1.0e6);
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.l2.evaluated);
  ASSERT_EQ(a.l2.basis, L2ServiceBasis::kHotAddress);
  const WhatIf* w = what_if_with(a, WhatIfId::kLockFree);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(what_if_with(a, WhatIfId::kLoadBeforeCas), nullptr) << "a lock hands over one holder at a time";
  const double T = *p.counter(metric::kDurationNs);
  const double ns_per_cycle = T / a.l2.inputs.elapsed_cycles;
  const double share = a.l2.inputs.hottest_share, s1 = a.l2.one_address_cycles;
  const double other = T * (1 - std::min(1.0, a.l2.utilization));
  EXPECT_NEAR(w->interval.high, T / (other + 5.0e4 * share * s1 * ns_per_cycle), 1e-6 * w->interval.high);
  EXPECT_NEAR(w->interval.low, T / (other + 1.0e6 * share * s1 * ns_per_cycle), 1e-6 * w->interval.low);
  const Finding* f = a.find(FindingKind::kL2HotAddress);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("spin lock"), std::string::npos) << f->title;
  EXPECT_NE(f->recommendation.find("native atomics"), std::string::npos);
}

// Locks over many words (one per bucket): the CASes spread as a hash probe's do, with as many
// non-CAS atomics. Only the release's atomic exchange in the SASS tells the lock apart; then
// lock-free is priced at the present basis's S and load-before-CAS is not proposed.
TEST_F(L2CasWhatIf, SpinLocksOverManyWordsAreLocksOnlyWithTheirExchange) {
  KernelProfile p = cas_probe(1.6e5 * 2.2 / 0.9, 2.0e6);  // 4.5 CAS per update
  const KernelAnalysis probe = analyze(p, model);
  ASSERT_TRUE(probe.l2.evaluated);
  ASSERT_NE(probe.l2.basis, L2ServiceBasis::kHotAddress);
  EXPECT_EQ(what_if_with(probe, WhatIfId::kLockFree), nullptr) << "no exchange: a probe, not a lock";
  EXPECT_NE(what_if_with(probe, WhatIfId::kLoadBeforeCas), nullptr);
  p.global_atomic_exch = true;
  const KernelAnalysis locks = analyze(p, model);
  const WhatIf* w = what_if_with(locks, WhatIfId::kLockFree);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(what_if_with(locks, WhatIfId::kLoadBeforeCas), nullptr) << "a lock hands over one holder at a time";
  const double T = *p.counter(metric::kDurationNs);
  const double ns_per_cycle = T / locks.l2.inputs.elapsed_cycles;
  const double share = locks.l2.inputs.hottest_share, s = locks.l2.service_cycles;
  const double even = 1.0 / locks.l2.inputs.slices;
  ASSERT_LT(even, share);
  const double other = T * (1 - std::min(1.0, locks.l2.utilization));
  EXPECT_NEAR(w->interval.high, T / (other + 6.0e6 * even * s * ns_per_cycle), 1e-6 * w->interval.high)
      << "one native atomic per release (the 6e6 REDs), at the present basis's S, spread evenly";
  ASSERT_TRUE(w->least_change_time_ns);
  EXPECT_NEAR(*w->least_change_time_ns, other + 6.0e6 * share * s * ns_per_cycle, 1e-6 * *w->least_change_time_ns)
      << "the least change keeps the spin traffic's hottest share";
  EXPECT_LE(w->interval.low, T / *w->least_change_time_ns * (1 + 1e-9));
  EXPECT_NE(w->basis.find("the lock words"), std::string::npos) << w->basis;
}

TEST_F(L2CasWhatIf, FewCasPerUpdateIsNoSpinLock) {
  const KernelAnalysis a = analyze(spin_lock(1.5e6, 1.0e6), model);  // 1.5 CAS per update
  EXPECT_EQ(what_if_with(a, WhatIfId::kLockFree), nullptr);
}

// csr-like: spread REDs with the hottest slice at twice the mean; privatize and aggregate both.
TEST_F(L2CasWhatIf, HotSliceExcessGetsWarpAggregationBesidePrivatization) {
  L2Spec l2;
  l2.red = 3.0e7;
  l2.red_hottest = 2.0 * l2.red / 96;
  l2.warp_instructions = 6.25e5;
  l2.elapsed_cycles = l2.red_hottest * 0.9 / 0.9;  // U 0.9 at the many-lines RED cell (0.9 cycles)
  KernelProfile p = global_only(l2.elapsed_cycles / kL2ClockMhz * 1000, l2);
  p.global_atomic_op = GlobalAtomicOp::kRedAddU32;
  p.useful_updates = 2.0e7;
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.l2.evaluated);
  ASSERT_NE(what_if_with(a, WhatIfId::kPrivatize), nullptr);
  const WhatIf* w = what_if_with(a, WhatIfId::kAggregateHotLanes);
  ASSERT_NE(w, nullptr);
  const double T = *p.counter(metric::kDurationNs), u = std::min(1.0, a.l2.utilization);
  const double hottest = a.l2.inputs.requests_hottest_slice, hot = hottest - l2.red / 96;
  const double lanes = 2.0e7 / 6.25e5;
  EXPECT_NEAR(w->interval.high, T / (T * (1 - u) + u * T * (hottest - hot * (1 - 1 / lanes)) / hottest),
              1e-6 * w->interval.high);
  EXPECT_DOUBLE_EQ(w->interval.low, 1.0);
  // Evenly spread slices: no excess, no aggregation.
  test::add_l2_counters(p, [&] { L2Spec e = l2; e.red_hottest = l2.red / 96; return e; }());
  EXPECT_EQ(what_if_with(analyze(p, model), WhatIfId::kAggregateHotLanes), nullptr);
}

}  // namespace
}  // namespace atomq::model
