#include <gtest/gtest.h>

#include <vector>

#include "atomq/model/analysis.hpp"
#include "atomq/model/comparison.hpp"
#include "model_fixture.hpp"

namespace atomq::model {
namespace {

using calibration::OpVariant;
using calibration::Pattern;
using test::ProfileSpec;

// 50% occupancy x 64 warps: 32 warps in flight, a grid point of the test table.
constexpr double kQueue = 32;

class Analysis : public ::testing::Test {
 protected:
  ServiceTimeModel model{test::make_h200_like_table()};

  // A kernel whose shared atomics follow pattern p with e lanes and CAS share c, and whose
  // active time makes the unit busy a fraction u of it (by the closed-form S).
  ProfileSpec kernel(const std::string& name, const Pattern& p, double e, double c, double u,
                     double instructions = 132.0 * 100000) const {
    ProfileSpec s;
    s.name = name;
    s.instructions = instructions;
    s.cas_share = c;
    s.active_lanes = e;
    s.wavefronts_per_instruction = expected_wavefronts(p, e, c, OpVariant::kAdd);
    s.active_cycles_sum =
        test::cycles_for_utilization(instructions, test::oracle_s(kQueue, e, c, OpVariant::kAdd, p), u);
    return s;
  }
  KernelAnalysis run(const ProfileSpec& s) const { return analyze(test::make_profile(s), model); }
};

TEST_F(Analysis, UtilizationIsOneWhenBusyTimeEqualsActiveTime) {
  for (const Pattern& p : {Pattern{1}, Pattern{4}, Pattern{32}, Pattern{0}}) {
    const KernelAnalysis a = run(kernel("k", p, 32, 0, 1.0));
    ASSERT_TRUE(a.evaluated);
    EXPECT_NEAR(a.utilization.mean, 1.0, 1e-9) << calibration::to_string(p);
    EXPECT_NEAR(a.utilization.max, 1.0, 1e-9);
    EXPECT_DOUBLE_EQ(a.queue_length, kQueue);
  }
}

TEST_F(Analysis, UtilizationGrowsWithTheNumberOfInstructions) {
  ProfileSpec s = kernel("k", Pattern{2}, 32, 0.25, 0.2);
  double previous = 0;
  for (double factor : {1.0, 1.5, 2.0, 4.0}) {
    ProfileSpec more = s;
    more.instructions = s.instructions * factor;  // same active time
    const KernelAnalysis a = run(more);
    EXPECT_GT(a.utilization.mean, previous);
    EXPECT_NEAR(a.utilization.mean, 0.2 * factor, 1e-9);
    previous = a.utilization.mean;
  }
}

TEST_F(Analysis, MaxOverSmsFollowsTheBusiestSm) {
  ProfileSpec s = kernel("k", Pattern{1}, 32, 0, 0.5);
  s.busiest_share = 1.6;
  KernelProfile p = test::make_profile(s);
  // The busiest SM has 1.6x the wavefronts but is active only as long as the mean SM.
  p.counters[metric::kCyclesActiveMax] = s.active_cycles_sum / s.sm_count;
  const KernelAnalysis a = analyze(p, model);
  EXPECT_NEAR(a.utilization.max, 1.6 * a.utilization.mean, 1e-9);
  EXPECT_TRUE(a.has(FindingKind::kImbalance));
}

TEST_F(Analysis, SeedSingleColourImageIsHighUtilizationHighConflict) {
  // Seed §3.1: the single-colour image keeps the unit 98% busy, all lanes on one bin.
  const KernelAnalysis a = run(kernel("hist_single_colour", Pattern{0}, 32, 0, 0.98));
  EXPECT_NEAR(a.utilization.mean, 0.98, 1e-9);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kSevere);
  const Finding* f = a.find(FindingKind::kHighUtilizationHighConflict);
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->recommendation.empty());
  EXPECT_FALSE(f->evidence.empty());
  EXPECT_FALSE(a.has(FindingKind::kHighUtilizationLowConflict));
  EXPECT_EQ(a.boundness.verdict, "throughput-bound");

  // What-if: 8 copies cut k from 32 to 4; the unit's idle 2% stays.
  ASSERT_FALSE(f->what_ifs.empty());
  const WhatIf& w = f->what_ifs.front();
  EXPECT_DOUBLE_EQ(w.wavefronts_per_instruction, 4);
  const double s_ratio = test::oracle_s(kQueue, 32, 0, OpVariant::kAdd, Pattern{4}) /
                         test::oracle_s(kQueue, 32, 0, OpVariant::kAdd, Pattern{0});
  EXPECT_NEAR(w.speedup, 1.0 / (1.0 - 0.98 + 0.98 * s_ratio), 1e-6);
  EXPECT_NEAR(w.predicted_utilization, 0.98 * s_ratio * w.speedup, 1e-6);
  ASSERT_TRUE(w.predicted_time_ns);
  EXPECT_NEAR(*w.predicted_time_ns * w.speedup, *a.inputs.duration_ns, 1e-6 * *a.inputs.duration_ns);
}

TEST_F(Analysis, SeedRandomColourImageIsNotAtomicBound) {
  // Random colours over 256 bins: a few lanes share a bank (k ~ 3.5), but the unit is mostly
  // idle while the loads stream in.
  ProfileSpec s = kernel("hist_random_colour", Pattern{4}, 32, 0, 0.35);
  s.wavefronts_per_instruction = 3.5;
  const KernelAnalysis a = run(s);
  ASSERT_TRUE(a.evaluated);
  EXPECT_LT(a.utilization.mean, 0.7);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kNotAtomicBound);
  EXPECT_FALSE(a.has(FindingKind::kHighUtilizationHighConflict));
  EXPECT_FALSE(a.has(FindingKind::kHighUtilizationLowConflict));
}

TEST_F(Analysis, SeedKernelAVersusKernelBKeepsTheSeedsOrdering) {
  // Seed §6.2: both 1,024,000 atomic operations; A: U 92%, e 28.7; B: U 68%, e 12.3.
  const double ops = 1024000;
  const KernelAnalysis a = run(kernel("kernel_a", Pattern{1}, 28.7, 0, 0.92, ops / 28.7));
  const KernelAnalysis b = run(kernel("kernel_b", Pattern{1}, 12.3, 0, 0.68, ops / 12.3));
  EXPECT_NEAR(a.utilization.mean, 0.92, 1e-6);
  EXPECT_NEAR(b.utilization.mean, 0.68, 1e-6);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kSevere);
  EXPECT_EQ(b.utilization_class, UtilizationClass::kNotAtomicBound);

  const KernelComparison c = compare(a, b);
  EXPECT_EQ(c.more_atomic_bound, "a");
  EXPECT_EQ(c.class_a, UtilizationClass::kSevere);
  EXPECT_EQ(c.class_b, UtilizationClass::kNotAtomicBound);
  ASSERT_GE(c.rows.size(), 5u);
  EXPECT_EQ(c.rows[0].quantity, "thread-level atomic operations");
  EXPECT_NEAR(c.rows[0].a, ops, 1e-6);
  EXPECT_NEAR(c.rows[0].b, ops, 1e-6);
  const ComparisonRow* lanes = nullptr;
  for (const ComparisonRow& r : c.rows)
    if (r.quantity == "active lanes e") lanes = &r;
  ASSERT_NE(lanes, nullptr);
  EXPECT_NEAR(lanes->a, 28.7, 1e-9);
  EXPECT_NEAR(lanes->b, 12.3, 1e-9);
  EXPECT_NE(c.summary.find("kernel_a is more bound"), std::string::npos) << c.summary;
  // Swapped arguments: the same kernel is named.
  EXPECT_EQ(compare(b, a).more_atomic_bound, "b");
}

TEST_F(Analysis, FewActiveLanesAtHighUtilizationIsLowConflict) {
  const KernelAnalysis a = run(kernel("sparse_rows", Pattern{1}, 4, 0, 0.85));
  const Finding* f = a.find(FindingKind::kHighUtilizationLowConflict);
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->what_ifs.empty());
  const WhatIf& w = f->what_ifs.front();
  EXPECT_DOUBLE_EQ(w.active_lanes, 32);
  EXPECT_NEAR(w.instructions, a.inputs.instructions * 4 / 32, 1e-6);
  const double s_ratio = test::oracle_s(kQueue, 32, 0, OpVariant::kAdd, Pattern{1}) /
                         test::oracle_s(kQueue, 4, 0, OpVariant::kAdd, Pattern{1});
  EXPECT_NEAR(w.speedup, 1.0 / (1.0 - 0.85 + 0.85 * s_ratio * 4 / 32), 1e-6);
}

TEST_F(Analysis, CasHeavyStreamReportsRetryAmplification) {
  ProfileSpec s = kernel("float_hist", Pattern{1}, 32, 0.75, 0.8);
  KernelProfile p = test::make_profile(s);
  const double cas = s.instructions * 0.75;
  p.useful_updates = cas * 32 / 3.0;  // three CAS attempts per update
  const KernelAnalysis a = analyze(p, model);
  const Finding* f = a.find(FindingKind::kCasHeavy);
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(a.boundness.cas_lane_ops_per_update);
  EXPECT_NEAR(*a.boundness.cas_lane_ops_per_update, 3.0, 1e-9);
  ASSERT_FALSE(f->what_ifs.empty());
  EXPECT_DOUBLE_EQ(f->what_ifs.front().cas_share, 0.0);
  EXPECT_NEAR(f->what_ifs.front().instructions, s.instructions * (0.25 + 0.75 / 3), 1e-3);
  EXPECT_GT(f->what_ifs.front().speedup, 1.5);

  const KernelAnalysis plain = run(kernel("int_hist", Pattern{1}, 32, 0.0, 0.8));
  EXPECT_FALSE(plain.has(FindingKind::kCasHeavy));
}

TEST_F(Analysis, DependencyChainIsLatencyBound) {
  // One warp per SM in a CAS loop: an atomic every 60 cycles, close to the chain latency
  // (43.6 cycles for CAS on distinct words), the unit mostly idle.
  ProfileSpec s;
  s.name = "cas_chain";
  s.cas_share = 1.0;
  s.wavefronts_per_instruction = 2;
  s.occupancy_pct = 100.0 / 64;  // n̂ = 1
  s.active_cycles_sum = s.instructions * 60;
  const KernelAnalysis a = run(s);
  ASSERT_TRUE(a.evaluated);
  EXPECT_DOUBLE_EQ(a.queue_length, 1.0);
  EXPECT_NEAR(a.boundness.response_cycles, 60.0, 1e-9);  // Little: R = n / X
  const double chain = test::oracle_chain_latency(calibration::LatencyOp::kCas, 1);
  EXPECT_NEAR(a.boundness.unloaded_latency_cycles, chain, 1e-9);
  EXPECT_NEAR(a.boundness.queueing_delay_cycles, 60.0 - chain, 1e-9);
  EXPECT_EQ(a.boundness.verdict, "latency-bound");
  EXPECT_TRUE(a.has(FindingKind::kLatencyBound));
  EXPECT_EQ(a.utilization_class, UtilizationClass::kNotAtomicBound);

  // The same rate with 32 warps in flight is not a chain: R is far above L.
  s.occupancy_pct = 50;
  const KernelAnalysis queued = run(s);
  EXPECT_EQ(queued.boundness.verdict, "other work");
  EXPECT_FALSE(queued.has(FindingKind::kLatencyBound));
}

TEST_F(Analysis, SingleWarpRateRaisesATooLowQueueEstimate) {
  // Occupancy says 1 warp, but an atomic completes every 1.5 cycles, and one warp alone
  // manages one every S(1) = 5.5 cycles: at least 5.5 / 1.5 warps must be issuing.
  ProfileSpec s = kernel("k", Pattern{1}, 32, 0, 0.5);
  s.occupancy_pct = 100.0 / 64;
  s.active_cycles_sum = s.instructions * 1.5;
  const KernelAnalysis a = run(s);
  EXPECT_NEAR(a.queue_length, test::oracle_latency(1, OpVariant::kAdd) / 1.5, 1e-9);
  EXPECT_NE(a.queue_length_method.find("S(1)"), std::string::npos);
}

TEST_F(Analysis, BusyDramWithIdleUnitIsAMemoryBottleneck) {
  ProfileSpec s = kernel("hist_u32", Pattern{1}, 32, 0, 0.3);
  s.dram_peak = 4e12;
  const double duration_s = s.active_cycles_sum / s.sm_count / (s.clock_mhz * 1e6);
  s.dram_bytes = 0.8 * s.dram_peak * duration_s;
  EXPECT_TRUE(run(s).has(FindingKind::kHiddenMemoryBottleneck));
  s.dram_bytes = 0.2 * s.dram_peak * duration_s;
  EXPECT_FALSE(run(s).has(FindingKind::kHiddenMemoryBottleneck));
}

TEST_F(Analysis, ComparisonFindsUtilizationDropWithMoreTraffic) {
  ProfileSpec small = kernel("small_image", Pattern{1}, 32, 0, 0.85);
  small.dram_bytes = 4e6;
  ProfileSpec large = kernel("large_image", Pattern{1}, 32, 0, 0.55);
  large.dram_bytes = 64e6;
  const KernelComparison c = compare(run(small), run(large));
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].kind, FindingKind::kHiddenMemoryBottleneck);
  EXPECT_NE(c.findings[0].title.find("large_image"), std::string::npos);
  large.dram_bytes = 4e6;
  EXPECT_TRUE(compare(run(small), run(large)).findings.empty());
}

TEST_F(Analysis, AssumedLanesAndVariantAreSaid) {
  ProfileSpec s = kernel("k", Pattern{1}, 32, 0, 0.5);
  s.active_lanes.reset();
  s.variant.reset();
  const KernelAnalysis a = run(s);
  ASSERT_TRUE(a.evaluated);
  EXPECT_EQ(a.inputs.active_lanes_origin, Origin::kAssumed);
  EXPECT_DOUBLE_EQ(a.inputs.active_lanes, 32);
  EXPECT_TRUE(a.inputs.variant_assumed);
  EXPECT_GE(a.notes.size(), 2u);
}

// e from the data-bytes counter and the SASS's lane width; assumed, with the reason, when the
// width is unknown or the kernel spins in a CAS loop.
TEST_F(Analysis, LanesFromDataBytesNeedTheLaneWidth) {
  ProfileSpec s = kernel("k", Pattern{1}, 32, 0, 0.5);
  s.active_lanes.reset();
  KernelProfile p = test::make_profile(s);
  const double n = p.counters.at(metric::kSharedAtomInst);
  p.counters[metric::kSharedAtomDataBytes] = n * 8 * 4;  // e = 8 with 4-byte lanes
  p.shared_atomic_lane_bytes = 4;
  KernelAnalysis a = analyze(p, model);
  EXPECT_EQ(a.inputs.active_lanes_origin, Origin::kMeasured);
  EXPECT_NEAR(a.inputs.active_lanes, 8, 1e-9);
  EXPECT_NE(a.inputs.active_lanes_basis.find("4 bytes per lane"), std::string::npos);

  p.shared_atomic_lane_bytes = 8;  // the same bytes in 8-byte lanes: e = 4
  EXPECT_NEAR(analyze(p, model).inputs.active_lanes, 4, 1e-9);

  p.shared_cas_spin = true;
  a = analyze(p, model);
  EXPECT_EQ(a.inputs.active_lanes_origin, Origin::kAssumed);
  EXPECT_NE(a.inputs.active_lanes_basis.find("CAST.SPIN"), std::string::npos);

  p.shared_cas_spin.reset();
  p.shared_atomic_lane_bytes.reset();
  a = analyze(p, model);
  EXPECT_EQ(a.inputs.active_lanes_origin, Origin::kAssumed);
  EXPECT_NE(a.inputs.active_lanes_basis.find("lane width"), std::string::npos);

  p.counters.erase(metric::kSharedAtomDataBytes);
  a = analyze(p, model);
  EXPECT_NE(a.inputs.active_lanes_basis.find(metric::kSharedAtomDataBytes), std::string::npos);
}

TEST_F(Analysis, AtomicBoundTimeIsTheBusiestSmsBusyTimeAtTheClock) {
  const KernelAnalysis a = run(kernel("k", Pattern{8}, 32, 0, 0.6));
  ASSERT_TRUE(a.utilization.atomic_bound_time_ns);
  EXPECT_NEAR(*a.utilization.atomic_bound_time_ns, 0.6 * *a.inputs.duration_ns,
              1e-6 * *a.inputs.duration_ns);
}

// The predicted kernel time is the largest floor: the unit's busy time, until the busiest SM's
// instruction issue (4 warp instructions per cycle) takes longer.
TEST_F(Analysis, PredictedTimeIsTheLargestFloor) {
  ProfileSpec s;
  KernelProfile p = test::make_profile(s);
  const KernelAnalysis atomic = analyze(p, model);
  ASSERT_TRUE(atomic.time.atomic_ns && atomic.utilization.atomic_bound_time_ns);
  EXPECT_DOUBLE_EQ(*atomic.time.predicted_ns, *atomic.utilization.atomic_bound_time_ns);
  EXPECT_EQ(atomic.time.bound_by, "atomic units");
  EXPECT_FALSE(atomic.time.issue_ns.has_value());

  const double active = *p.counter(metric::kCyclesActiveMax);
  p.counters[metric::kInstExecutedMax] = 4 * active * 0.999;  // issue busy 99.9% of the SM's time
  const KernelAnalysis issue = analyze(p, model);
  ASSERT_TRUE(issue.time.issue_ns.has_value());
  EXPECT_NEAR(*issue.time.issue_ns, 0.999 * *p.counter(metric::kDurationNs), 1e-6);
  ASSERT_GT(*issue.time.issue_ns, *issue.time.atomic_ns) << "the spec's unit is busy less than 99.9%";
  EXPECT_EQ(issue.time.bound_by, "instruction issue");
  EXPECT_DOUBLE_EQ(*issue.time.predicted_ns, std::max(*issue.time.issue_ns, *issue.time.atomic_ns));
}

// Every what-if carries the id of its kind: what the report, the validation suite and the tests
// match on, not its text (which carries the kernel's figures).
TEST_F(Analysis, EveryWhatIfCarriesTheIdOfItsKind) {
  auto ids = [](const Finding* f) {
    std::vector<WhatIfId> out;
    if (f)
      for (const WhatIf& w : f->what_ifs) out.push_back(w.id);
    return out;
  };
  const KernelAnalysis conflict = run(kernel("conflict", Pattern{0}, 32, 0, 0.98));
  EXPECT_EQ(ids(conflict.find(FindingKind::kHighUtilizationHighConflict)),
            (std::vector{WhatIfId::kReplicate, WhatIfId::kNoConflicts}));
  const KernelAnalysis sparse = run(kernel("sparse", Pattern{1}, 4, 0, 0.85));
  EXPECT_EQ(ids(sparse.find(FindingKind::kHighUtilizationLowConflict)),
            (std::vector{WhatIfId::kFullWarps, WhatIfId::kMoreWarps}));
  const KernelAnalysis cas = run(kernel("cas", Pattern{1}, 32, 0.75, 0.8));
  EXPECT_EQ(ids(cas.find(FindingKind::kCasHeavy)), std::vector{WhatIfId::kNativeFetchAndOp});
  for (const KernelAnalysis* a : {&conflict, &sparse, &cas})
    for (const Finding& f : a->findings)
      for (const WhatIf& w : f.what_ifs) EXPECT_NE(w.id, WhatIfId::kCustom) << w.change;
  // A caller's own change keeps the id it names (kCustom unless it says otherwise).
  ModelChange change{"k to 1", std::nullopt, std::nullopt, std::nullopt, 1.0, 1.0};
  EXPECT_EQ(predict(conflict, model, change).id, WhatIfId::kCustom);
  change.id = WhatIfId::kNoConflicts;
  EXPECT_EQ(predict(conflict, model, change).id, WhatIfId::kNoConflicts);
  EXPECT_EQ(enum_name(WhatIfId::kNoConflicts), "no_conflicts");
  EXPECT_EQ(parse_enum<WhatIfId>("replicate_per_warp"), WhatIfId::kReplicatePerWarp);
}

// The analysis recommends one what-if: the largest gain among those that cannot lose.
TEST_F(Analysis, RecommendsTheLargestGainThatCannotLose) {
  const KernelAnalysis a = run(kernel("conflict", Pattern{0}, 32, 0, 0.98));
  const WhatIf* w = a.recommended_what_if();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->id, WhatIfId::kNoConflicts);
  EXPECT_EQ(a.recommended_finding(), a.find(FindingKind::kHighUtilizationHighConflict));
  for (const Finding& f : a.findings)
    for (const WhatIf& other : f.what_ifs)
      if (!other.interval.evaluated || other.interval.low >= 1.0) EXPECT_LE(other.speedup, w->speedup);
  EXPECT_EQ(w->gain_high(), w->interval.evaluated ? w->interval.high : w->speedup);
  EXPECT_EQ(w->gain_low(), w->interval.evaluated ? w->interval.low : w->speedup);
  EXPECT_EQ(run(kernel("idle", Pattern{1}, 32, 0, 0.2)).recommended_what_if(), nullptr);
}

// A what-if whose interval reaches below 1x (e.g. one copy per warp) is an estimate, not a fix:
// the recommendation takes the largest gain among the others.
TEST_F(Analysis, RecommendationSkipsAWhatIfThatCanLose) {
  KernelAnalysis a = run(kernel("conflict", Pattern{0}, 32, 0, 0.98));
  ASSERT_GE(a.findings.size(), 2u);
  WhatIf losing;
  losing.id = WhatIfId::kReplicatePerWarp;
  losing.speedup = 100;
  losing.interval.evaluated = true;
  losing.interval.low = 0.7;
  losing.interval.high = 100;
  a.findings.front().what_ifs.push_back(losing);
  const auto ref = recommend_what_if(a);
  ASSERT_TRUE(ref);
  EXPECT_EQ(a.findings[ref->finding].what_ifs[ref->what_if].id, WhatIfId::kNoConflicts);
  // Cannot lose, but guarantees less than no_conflicts: the ranking reads the low end first.
  const double guaranteed = a.findings[ref->finding].what_ifs[ref->what_if].gain_low();
  ASSERT_GT(guaranteed, 1.0);
  a.findings.front().what_ifs.back().interval.low = 1.0;
  const auto still = recommend_what_if(a);
  ASSERT_TRUE(still);
  EXPECT_EQ(a.findings[still->finding].what_ifs[still->what_if].id, WhatIfId::kNoConflicts);
  a.findings.front().what_ifs.back().interval.low = guaranteed * 1.5;  // now the largest sure gain
  const auto now = recommend_what_if(a);
  ASSERT_TRUE(now);
  EXPECT_EQ(now->finding, 0u);
  EXPECT_EQ(a.findings[now->finding].what_ifs[now->what_if].id, WhatIfId::kReplicatePerWarp);
}

// A saturated unit with nothing to remove (one wavefront per instruction, full warps, no CAS):
// the severe headline says "the findings below say why", so a finding must follow it.
TEST_F(Analysis, SaturatedConflictFreeFullWarpsGetAThroughputFinding) {
  const KernelAnalysis a = run(kernel("popc_distinct", Pattern{1}, 32, 0, 0.97));
  ASSERT_EQ(a.shared_unit_class, UtilizationClass::kSevere);
  ASSERT_FALSE(a.findings.empty());
  EXPECT_NE(a.findings.front().recommendation.find("findings below"), std::string::npos);
  const Finding* f = a.find(FindingKind::kSharedThroughput);
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->recommendation.empty());
  EXPECT_TRUE(f->what_ifs.empty()) << "no change to predict: every atomic is already cheap";
  // Not where another rule says why, nor below the severe mark.
  EXPECT_FALSE(run(kernel("conflict", Pattern{0}, 32, 0, 0.98)).has(FindingKind::kSharedThroughput));
  EXPECT_FALSE(run(kernel("potential", Pattern{1}, 32, 0, 0.85)).has(FindingKind::kSharedThroughput));
}

// One copy of the shared counters per warp leaves k and the unit's busy time as they are; a grid
// that is not one persistent wave keeps its merges too, so at best it changes nothing: it is not
// proposed (it was, with S 0 cycles and U 0%).
TEST_F(Analysis, OneCopyPerWarpThatCannotGainIsNotProposed) {
  KernelProfile p = test::make_profile(kernel("block_private", Pattern{1}, 32, 0, 0.97));
  p.launch.shared_mem_bytes_per_block = 1024;  // 256 counters
  p.launch.max_active_blocks_per_sm = 8;       // 264 blocks: not 132 x 8, not a persistent grid
  const KernelAnalysis a = analyze(p, model);
  for (const Finding& f : a.findings)
    for (const WhatIf& w : f.what_ifs) {
      EXPECT_NE(w.id, WhatIfId::kReplicatePerWarp) << w.change;
      EXPECT_GT(w.service_cycles, 0.0) << w.change;
      EXPECT_GT(w.predicted_utilization, 0.0) << w.change;
    }
}

// The other side of the verdict: the floor that binds a kernel the atomics do not, named with
// its numbers: DRAM bandwidth, instruction issue, few SMs doing the work, or none.
TEST_F(Analysis, TheOtherFloorIsNamedWithItsNumbers) {
  ProfileSpec s = kernel("copy_like", Pattern{1}, 32, 0, 0.1);
  s.dram_peak = 4e12;
  KernelProfile p = test::make_profile(s);
  const double T = *p.counter(metric::kDurationNs);
  p.counters[metric::kDramBytesRead] = 0.9 * s.dram_peak * T * 1e-9;
  const KernelAnalysis memory = analyze(p, model);
  EXPECT_EQ(memory.time.other_floor.rfind("DRAM bandwidth", 0), 0u) << memory.time.other_floor;
  EXPECT_NE(memory.time.other_floor.find("90% of the kernel's time"), std::string::npos) << memory.time.other_floor;

  p.counters[metric::kDramBytesRead] = 0.1 * s.dram_peak * T * 1e-9;
  p.counters[metric::kInstExecutedMax] = 4 * *p.counter(metric::kCyclesActiveMax) * 0.8;
  const KernelAnalysis issue = analyze(p, model);
  EXPECT_EQ(issue.time.other_floor.rfind("instruction issue", 0), 0u) << issue.time.other_floor;

  p.counters[metric::kInstExecutedMax] = 4 * *p.counter(metric::kCyclesActiveMax) * 0.1;
  const KernelAnalysis open = analyze(p, model);
  EXPECT_EQ(open.time.other_floor.rfind("no floor the counters give", 0), 0u) << open.time.other_floor;

  p.counters[metric::kCyclesActiveAvg] = 0.05 * *p.counter(metric::kCyclesActiveMax);
  const KernelAnalysis few = analyze(p, model);
  EXPECT_NEAR(few.time.sm_active_balance, 0.05, 1e-9);
  EXPECT_EQ(few.time.other_floor.rfind("few SMs do the work", 0), 0u) << few.time.other_floor;
}

}  // namespace
}  // namespace atomq::model
