// The L2 queue on synthetic profiles built from the H200 figures (docs/model.md, "The L2
// queue"): a same-address integer RED binds at one slice, float scatter-adds are classed by
// the hottest slice's utilization, an already privatized kernel is not told to privatize, idle
// slices get no finding, old profiles without the L2 counters still evaluate.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "atomq/model/analysis.hpp"
#include "atomq/model/analysis_json.hpp"
#include "l2_analysis_fixture.hpp"

namespace atomq::model {
namespace {

using test::kL2ClockMhz;
using test::L2Spec;
using test::what_if_with;

bool has_l2_finding(const KernelAnalysis& a) {
  return a.has(FindingKind::kL2HotAddress) || a.has(FindingKind::kL2HotSlice) ||
         a.has(FindingKind::kL2Throughput);
}

class L2Queue : public ::testing::Test {
 protected:
  ServiceTimeModel model{test::make_h200_like_table_with_l2()};

  // A kernel whose atomics are all global: the shared unit idle.
  static KernelProfile global_only(const std::string& name, double duration_ns, const L2Spec& l2) {
    test::ProfileSpec spec;
    spec.name = name;
    KernelProfile p = test::make_profile(spec);
    p.counters[metric::kSharedAtomInst] = 0;
    p.counters[metric::kSharedAtomInstAlu] = 0;
    p.counters[metric::kSharedAtomInstCas] = 0;
    p.counters[metric::kSharedAtomWavefronts] = 0;
    p.counters[metric::kDurationNs] = duration_ns;
    test::add_l2_counters(p, l2);
    return p;
  }

  // 4.2 M RED requests on a few lines (held-out round 8's smooth image, H100): 8 per warp
  // instruction, 1.7 sectors each, the hottest slice's requests x S about a third of the time.
  static KernelProfile red_on_few_lines(const std::string& name, double busy_fraction) {
    L2Spec s;
    s.red = 4.2e6;
    s.red_hottest = 71239;
    s.elapsed_cycles = 222322;
    s.busy_fraction = busy_fraction;
    s.warp_instructions = 524288;
    s.sectors_per_request = 1.7;
    KernelProfile p = global_only(name, 222322 * 1000.0 / kL2ClockMhz, s);
    p.global_atomic_op = GlobalAtomicOp::kRedAddU32;
    return p;
  }

  // The request port's counters over 132 SMs: cycles per SM the L1 handed and held a request for
  // the crossbar, out of its elapsed cycles, and every L2 request the SMs sent.
  static void read_port(KernelProfile& p, double active, double stalled, double elapsed, double requests) {
    p.counters[metric::kL1XbarRequestActive] = active * 132;
    p.counters[metric::kL1XbarRequestStalled] = stalled * 132;
    p.counters[metric::kL1CyclesElapsedSum] = elapsed * 132;
    p.counters[metric::kL2RequestsFromSms] = requests;
  }

  // naive_global on a one-value input (H200): 100.6 M RED requests in ~99 M L2 cycles, 50.2 ms.
  static KernelProfile naive_global_one_value() {
    L2Spec l2;
    l2.red = 100.6e6;
    l2.red_hottest = 99.0e6;
    l2.elapsed_cycles = 50.2e6 * kL2ClockMhz / 1000;
    l2.busy_fraction = 0.9;
    l2.warp_instructions = 2097152;
    KernelProfile p = global_only("naive_global", 50.2e6, l2);
    p.launch.grid = {1056, 1, 1};
    p.launch.max_active_blocks_per_sm = 8;
    p.global_atomic_op = GlobalAtomicOp::kRedAddU32;
    p.useful_updates = 67108864;
    return p;
  }

  // Float atomicAdd of 16 Mi values (H200): one address 30 ms, 25.2 M requests, 16.8 M at one
  // slice whose busy counter reads 33%; 1024 uniform addresses 1.47 ms, 16.9 M requests, 1.41 M
  // at the hottest slice, busy 77%.
  static KernelProfile scatter_add(bool one_address) {
    L2Spec l2;
    const double duration_ns = one_address ? 30.0e6 : 1.47e6;
    l2.red = one_address ? 25.2e6 : 16.9e6;
    l2.red_hottest = one_address ? 16.8e6 : 1.41e6;
    l2.elapsed_cycles = duration_ns * kL2ClockMhz / 1000;
    l2.busy_fraction = one_address ? 0.33 : 0.77;
    l2.warp_instructions = 16777216.0 / 32;
    KernelProfile p = global_only(one_address ? "scatter_add_one" : "scatter_add_1024", duration_ns, l2);
    p.launch.grid = {65536, 1, 1};
    p.launch.max_active_blocks_per_sm = 8;
    p.global_atomic_op = GlobalAtomicOp::kRedAddF32;
    p.global_atomic_addresses = one_address ? 1 : 1024;
    p.useful_updates = 16777216;
    return p;
  }
};

TEST_F(L2Queue, SameAddressIntegerReductionIsASevereHotAddress) {
  const KernelAnalysis a = analyze(naive_global_one_value(), model);
  ASSERT_TRUE(a.l2.evaluated) << a.l2.not_evaluated_reason;
  EXPECT_EQ(a.l2.basis, L2ServiceBasis::kHotAddress);
  EXPECT_EQ(a.l2.op_origin, Origin::kMeasured);
  EXPECT_DOUBLE_EQ(a.l2.service_cycles, 1.0);
  EXPECT_NEAR(a.l2.utilization, 99.0e6 / (50.2e6 * 1.98), 1e-9);
  EXPECT_EQ(a.l2.utilization_class, UtilizationClass::kSevere);
  EXPECT_EQ(a.shared_unit_class, UtilizationClass::kNotAtomicBound);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kSevere) << "the worse of the two units";
  EXPECT_EQ(a.binding_unit, BindingUnit::kL2AtomicUnit);
  const Finding& head = a.findings.front();
  EXPECT_EQ(head.kind, FindingKind::kUtilization);
  EXPECT_NE(head.title.find("Severe L2 atomic bottleneck: one hot address"), std::string::npos) << head.title;
  EXPECT_NE(head.title.find("of the hottest slice"), std::string::npos) << head.title;
  const Finding* hot = a.find(FindingKind::kL2HotAddress);
  ASSERT_NE(hot, nullptr);
  EXPECT_FALSE(a.has(FindingKind::kL2Throughput));
  const WhatIf* privatize = what_if_with(*hot, WhatIfId::kPrivatize);
  ASSERT_NE(privatize, nullptr);
  EXPECT_GT(privatize->speedup, 2.0);
  EXPECT_FALSE(privatize->basis.empty());
  const WhatIf* aggregate = what_if_with(*hot, WhatIfId::kAggregateInWarp);
  ASSERT_NE(aggregate, nullptr) << "48 requests per warp instruction can merge";
  EXPECT_GT(aggregate->speedup, 2.0);
  EXPECT_NE(what_if_with(*hot, WhatIfId::kSpreadCopies), nullptr);
}

// The same kernel where its SASS shows every global atomic issued by one elected lane per warp:
// no warp aggregation is proposed (nothing left to merge), the evidence says why, the rest stays.
TEST_F(L2Queue, AtomicsAlreadyAggregatedInTheWarpGetNoAggregationWhatIf) {
  KernelProfile p = naive_global_one_value();
  p.global_atomic_warp_aggregated = true;
  const KernelAnalysis a = analyze(p, model);
  const Finding* hot = a.find(FindingKind::kL2HotAddress);
  ASSERT_NE(hot, nullptr);
  EXPECT_EQ(what_if_with(*hot, WhatIfId::kAggregateInWarp), nullptr);
  EXPECT_NE(what_if_with(*hot, WhatIfId::kPrivatize), nullptr);
  EXPECT_NE(what_if_with(*hot, WhatIfId::kSpreadCopies), nullptr);
  const auto evidence = std::find_if(hot->evidence.begin(), hot->evidence.end(),
                                     [](const Evidence& e) { return e.name == "global_atomic_warp_aggregated"; });
  ASSERT_NE(evidence, hot->evidence.end());
  EXPECT_EQ(evidence->value, 1.0);
  EXPECT_EQ(a.l2.utilization_class, analyze(naive_global_one_value(), model).l2.utilization_class)
      << "the hint changes the advice, not the queue";
  // Every lane issuing (the hint false) keeps the what-if.
  p.global_atomic_warp_aggregated = false;
  EXPECT_NE(what_if_with(*analyze(p, model).find(FindingKind::kL2HotAddress), WhatIfId::kAggregateInWarp), nullptr);
}

TEST_F(L2Queue, FloatAddToOneAddressIsHotAndItsBusyCounterUnderReads) {
  const KernelAnalysis a = analyze(scatter_add(true), model);
  ASSERT_TRUE(a.l2.evaluated);
  EXPECT_EQ(a.l2.basis, L2ServiceBasis::kHotAddress);
  EXPECT_DOUBLE_EQ(a.l2.service_cycles, 3.5);
  EXPECT_NEAR(a.l2.utilization, 16.8e6 * 3.5 / (30.0e6 * 1.98), 1e-9);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kSevere);
  // The busy counter reads 33%: what the saturated same-address cell reads, not U.
  ASSERT_TRUE(a.l2.expected_busy_fraction);
  EXPECT_NEAR(*a.l2.expected_busy_fraction, 0.33, 0.01);
  EXPECT_NE(a.l2.busy_cross_check.find("consistent"), std::string::npos) << a.l2.busy_cross_check;
  const Finding* hot = a.find(FindingKind::kL2HotAddress);
  ASSERT_NE(hot, nullptr);
  const WhatIf* privatize = what_if_with(*hot, WhatIfId::kPrivatize);
  ASSERT_NE(privatize, nullptr);
  // One shared word in a CAS loop: ~33 wavefronts per update spread over 132 SMs, ~2 ms.
  ASSERT_TRUE(privatize->predicted_time_ns);
  EXPECT_GT(*privatize->predicted_time_ns, 1.0e6);
  EXPECT_LT(*privatize->predicted_time_ns, 4.0e6);
  EXPECT_NE(privatize->basis.find("CAS loop"), std::string::npos) << privatize->basis;
}

// The L2 law beside the cells: the synthetic table's law (table_fixture.hpp) at one sector per
// request and one hot line gives the one-address float add its chain cost; without the sectors
// counter the law says which metric it lacks.
TEST_F(L2Queue, TheLawIsEvaluatedBesideTheCellsWhereTheSectorsAreRead) {
  KernelProfile p = scatter_add(true);
  const KernelAnalysis without = analyze(p, model);
  ASSERT_TRUE(without.l2.evaluated);
  EXPECT_FALSE(without.l2.law.evaluated);
  EXPECT_NE(without.l2.law.not_evaluated_reason.find(metric::kL2RedSectors), std::string::npos)
      << without.l2.law.not_evaluated_reason;
  p.counters[metric::kL2RedSectors] = *p.counter(metric::kL2RedRequests);
  p.counters[metric::kL2AtomSectors] = 0;
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.l2.law.evaluated) << a.l2.law.not_evaluated_reason;
  EXPECT_DOUBLE_EQ(a.l2.law.chains, 1.0);
  EXPECT_NEAR(a.l2.law.service_cycles, test::synthetic_law_cycles(GlobalAtomicOp::kRedAddF32, 1.0, 1.0), 0.05);
  EXPECT_NEAR(a.l2.law.utilization,
              a.l2.inputs.requests_hottest_slice * a.l2.law.service_cycles / a.l2.inputs.elapsed_cycles, 1e-9);
  EXPECT_EQ(a.l2.utilization, without.l2.utilization) << "the law does not set U yet";
}

TEST_F(L2Queue, FloatAddOver1024AddressesIsClassedByTheHottestSlice) {
  const KernelAnalysis a = analyze(scatter_add(false), model);
  ASSERT_TRUE(a.l2.evaluated);
  EXPECT_NE(a.l2.basis, L2ServiceBasis::kHotAddress) << "8% of the requests at the hottest slice";
  EXPECT_EQ(a.l2.basis, L2ServiceBasis::kHotSlice) << "the hottest slice holds 8x the mean";
  EXPECT_EQ(a.l2.spread, AddressSpread::kManyLines) << "per-lane requests (32 per instruction)";
  const double u = 1.41e6 * test::synthetic_l2_cycles(GlobalAtomicOp::kRedAddF32, AddressSpread::kManyLines) /
                   (1.47e6 * 1.98);
  EXPECT_NEAR(a.l2.utilization, u, 1e-9);
  EXPECT_EQ(a.l2.utilization_class, classify(u, default_rules()));
  EXPECT_EQ(a.utilization_class, a.l2.utilization_class);
  const Finding* hot = a.find(FindingKind::kL2HotSlice);
  ASSERT_NE(hot, nullptr);
  const WhatIf* privatize = what_if_with(*hot, WhatIfId::kPrivatize);
  ASSERT_NE(privatize, nullptr);
  // 1024 contiguous bins x 1056 persistent blocks merge, one request per line of 32 words (the
  // one_line cell's requests per instruction); the rest of the kernel stays.
  const calibration::L2Cell* line = model.l2_section()->saturated(GlobalAtomicOp::kRedAddF32, AddressSpread::kOneLine);
  ASSERT_NE(line, nullptr);
  EXPECT_NEAR(privatize->instructions, 1024.0 / 32 * 132 * 8 * line->requests_per_instruction, 1.0);
  EXPECT_GT(privatize->speedup, 1.5);
}

TEST_F(L2Queue, AlreadyPrivatizedTrafficIsNotToldToPrivatize) {
  // block_private: 262,144 blocks each merging 256 bins (8 lines, one per slice) into L2.
  test::ProfileSpec spec = test::ProfileSpec{};
  spec.name = "block_private";
  spec.active_cycles_sum = test::cycles_for_utilization(spec.instructions, 1.02, 0.3);
  KernelProfile p = test::make_profile(spec);
  p.launch.grid = {262144, 1, 1};
  p.launch.max_active_blocks_per_sm = 8;
  L2Spec l2;
  l2.red = 262144.0 * 256;
  l2.red_hottest = l2.red / 8;
  l2.elapsed_cycles = l2.red_hottest * 0.9 / 0.95;
  l2.warp_instructions = 262144.0 * 8;
  test::add_l2_counters(p, l2);
  p.counters[metric::kDurationNs] = l2.elapsed_cycles / kL2ClockMhz * 1000;
  p.global_atomic_op = GlobalAtomicOp::kRedAddU32;
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.l2.evaluated);
  EXPECT_EQ(a.binding_unit, BindingUnit::kL2AtomicUnit);
  ASSERT_TRUE(has_l2_finding(a));
  for (const Finding& f : a.findings) {
    for (const WhatIf& w : f.what_ifs) EXPECT_NE(w.id, WhatIfId::kPrivatize) << w.change;
    EXPECT_EQ(f.recommendation.find("privatize into shared"), std::string::npos) << f.recommendation;
  }
  const Finding* merge = a.find(FindingKind::kL2HotSlice);
  ASSERT_NE(merge, nullptr);
  const WhatIf* persistent = what_if_with(*merge, WhatIfId::kPersistentGrid);
  ASSERT_NE(persistent, nullptr);
  EXPECT_GT(persistent->speedup, 2.0);
}

TEST_F(L2Queue, IdleOrUnbusySpreadSlicesGetNoFinding) {
  test::ProfileSpec spec;
  KernelProfile idle = test::make_profile(spec);
  L2Spec few;
  few.red = 1000;
  few.red_hottest = 100;
  few.elapsed_cycles = 1e6;
  test::add_l2_counters(idle, few);
  KernelAnalysis a = analyze(idle, model);
  ASSERT_TRUE(a.l2.evaluated);
  EXPECT_LT(a.l2.utilization, 0.01);
  EXPECT_FALSE(has_l2_finding(a));
  EXPECT_NE(a.binding_unit, BindingUnit::kL2AtomicUnit);

  L2Spec spread;  // evenly over 96 slices, the hottest at 30%
  spread.red = 96e6;
  spread.red_hottest = 1.1e6;
  spread.elapsed_cycles = 1.1e6 * 0.9 / 0.3;
  spread.warp_instructions = 3e6;
  KernelProfile even = global_only("even", 2e6, spread);
  even.global_atomic_op = GlobalAtomicOp::kRedAddU32;
  a = analyze(even, model);
  ASSERT_TRUE(a.l2.evaluated);
  EXPECT_EQ(a.l2.basis, L2ServiceBasis::kSpread);
  EXPECT_EQ(a.l2.spread, AddressSpread::kManyLines) << "32 requests per instruction";
  EXPECT_NEAR(a.l2.utilization, 0.3, 1e-9);
  EXPECT_FALSE(has_l2_finding(a));
  EXPECT_EQ(a.utilization_class, UtilizationClass::kNotAtomicBound);
  EXPECT_EQ(a.binding_unit, BindingUnit::kNone);
}

TEST_F(L2Queue, MissingCountersOrSectionLeaveItUnevaluatedWithANote) {
  // A profile recorded before the L2 counters existed: the request total only.
  KernelProfile old = naive_global_one_value();
  for (const char* name : {metric::kL2RedRequestsMax, metric::kL2AtomRequestsMax,
                           metric::kL2CyclesElapsedMax, metric::kL2CyclesElapsedSum, metric::kL2AtomicBusyMax})
    old.counters.erase(name);
  KernelAnalysis a = analyze(old, model);
  EXPECT_TRUE(a.evaluated);
  EXPECT_FALSE(a.l2.evaluated);
  EXPECT_NE(a.l2.not_evaluated_reason.find(".max"), std::string::npos) << a.l2.not_evaluated_reason;
  EXPECT_EQ(a.utilization_class, UtilizationClass::kNotAtomicBound);
  EXPECT_FALSE(has_l2_finding(a));
  bool noted = false;
  for (const auto& n : a.notes) noted |= n.find("L2 queue not evaluated") != std::string::npos;
  EXPECT_TRUE(noted);

  // A shared-only profile, and a table without an L2 section.
  const ServiceTimeModel no_l2(test::make_h200_like_table());
  a = analyze(naive_global_one_value(), no_l2);
  EXPECT_FALSE(a.l2.evaluated);
  EXPECT_NE(a.l2.not_evaluated_reason.find("no L2 section"), std::string::npos);
  a = analyze(test::make_profile(test::ProfileSpec{}), model);
  EXPECT_TRUE(a.evaluated);
  EXPECT_FALSE(a.l2.evaluated);

  // Malformed L2 counters are no crash either.
  KernelProfile bad = naive_global_one_value();
  bad.counters[metric::kL2CyclesElapsedMax] = std::nan("");
  bad.counters[metric::kL2RedRequestsMax] = -1;
  a = analyze(bad, model);
  EXPECT_FALSE(a.l2.evaluated);
}

TEST_F(L2Queue, UnknownOpIsChosenByTheObservedRateAndMarkedAssumed) {
  KernelProfile p = scatter_add(true);
  p.global_atomic_op.reset();
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.l2.evaluated);
  EXPECT_EQ(a.l2.op_origin, Origin::kAssumed);
  EXPECT_EQ(a.l2.op, GlobalAtomicOp::kRedAddF32) << "3.5 cycles per request: only f32 is that slow";
  EXPECT_NE(a.l2.op_reason.find("no SASS hint"), std::string::npos) << a.l2.op_reason;
  EXPECT_NE(a.l2.op_reason.find("observed rate"), std::string::npos) << a.l2.op_reason;
  const Finding* hot = a.find(FindingKind::kL2HotAddress);
  ASSERT_NE(hot, nullptr);
  bool said = false;
  for (const auto& d : hot->details) said |= d.find("U assumes red.add.f32") != std::string::npos;
  EXPECT_TRUE(said);

  // An integer-speed slice keeps the integer op: U is not inflated by a slower candidate.
  KernelProfile integer = naive_global_one_value();
  integer.global_atomic_op.reset();
  const KernelAnalysis b = analyze(integer, model);
  EXPECT_LE(b.l2.service_cycles, 1.0 * (1 + default_rules().l2_rate_tolerance));
}

// An opcode without a calibrated op of its own: the nearest op stands in, derived, and the
// reason names the opcode. A table calibrated before the op existed: the request kinds decide,
// assumed, and the reason says to calibrate again.
TEST_F(L2Queue, StandInOpIsDerivedAndAnOpTheTableLacksIsAssumed) {
  KernelProfile p = naive_global_one_value();
  p.global_atomic_op = GlobalAtomicOp::kRedOrU32;
  p.global_atomic_op_stands_in_for = "REDG.E.XOR.STRONG.GPU";
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.l2.evaluated);
  EXPECT_EQ(a.l2.op, GlobalAtomicOp::kRedOrU32);
  EXPECT_EQ(a.l2.op_origin, Origin::kDerived);
  EXPECT_NE(a.l2.op_reason.find("REDG.E.XOR.STRONG.GPU has no calibrated op"), std::string::npos) << a.l2.op_reason;

  calibration::ServiceTable old_table = test::make_h200_like_table_with_l2();
  calibration::L2Section& l2 = old_table.l2;
  l2.ops.erase(std::find(l2.ops.begin(), l2.ops.end(), GlobalAtomicOp::kRedOrU32));
  l2.cells.erase(std::remove_if(l2.cells.begin(), l2.cells.end(),
                                [](const calibration::L2Cell& c) { return c.op == GlobalAtomicOp::kRedOrU32; }),
                 l2.cells.end());
  const KernelAnalysis b = analyze(p, ServiceTimeModel(old_table));
  ASSERT_TRUE(b.l2.evaluated) << b.l2.not_evaluated_reason;
  EXPECT_EQ(b.l2.op_origin, Origin::kAssumed);
  EXPECT_NE(b.l2.op, GlobalAtomicOp::kRedOrU32);
  EXPECT_NE(b.l2.op_reason.find("the SASS names red.or.u32, which the table has no cells for"), std::string::npos)
      << b.l2.op_reason;
}

TEST_F(L2Queue, JsonCarriesTheQueueAndTheBindingUnit) {
  const auto doc = nlohmann::json::parse(analysis_to_json(analyze(scatter_add(true), model)));
  EXPECT_EQ(doc.at("binding_unit"), "l2_atomic_unit");
  EXPECT_EQ(doc.at("class"), "severe");
  EXPECT_EQ(doc.at("shared_unit_class"), "not_atomic_bound");
  const auto& l2 = doc.at("l2");
  EXPECT_EQ(l2.at("evaluated"), true);
  EXPECT_EQ(l2.at("service_basis"), "one_hot_address");
  EXPECT_EQ(l2.at("op"), "red.add.f32");
  EXPECT_EQ(l2.at("op_origin"), "measured");
  EXPECT_EQ(l2.at("slices"), 96);
  EXPECT_NEAR(l2.at("hottest_slice_share").get<double>(), 16.8 / 25.2, 1e-9);
  EXPECT_FALSE(l2.at("busy_cross_check").get<std::string>().empty());
  bool basis = false;
  for (const auto& f : doc.at("findings"))
    for (const auto& w : f.at("what_ifs")) basis |= !w.at("basis").get<std::string>().empty();
  EXPECT_TRUE(basis);
}

// Corrupt elapsed counters (sum / max far beyond any chip's slice count) leave the slice count
// unknown: it was narrowed to int from any ratio (5e9 became 705032704).
TEST_F(L2Queue, AbsurdSliceRatioLeavesTheSliceCountUnknown) {
  KernelProfile p = naive_global_one_value();
  std::string note;
  const calibration::L2Section& section = model.table().l2;
  const auto good = derive_l2_inputs(p, section, note);
  ASSERT_TRUE(good) << note;
  EXPECT_GT(good->slices, 0);
  p.counters[metric::kL2CyclesElapsedSum] = p.counters[metric::kL2CyclesElapsedMax] * 5e9;
  const auto bad = derive_l2_inputs(p, section, note);
  ASSERT_TRUE(bad) << note;
  EXPECT_EQ(bad->slices, 0);
}

// Same-address serialization (docs/model.md, "The L2 queue"): the 1024-address float add taking
// twice as long, so that its requests give U 46%; the slice's busy counter reads more than the
// calibrated cell (busy share 0.85) shows at that U.
KernelProfile twice_as_long(KernelProfile p) {
  for (const char* name : {metric::kL2CyclesElapsedMax, metric::kL2CyclesElapsedSum, metric::kDurationNs})
    p.counters[name] *= 2;
  return p;
}

KernelProfile with_busy(KernelProfile p, double busy_fraction) {
  p.counters[metric::kL2AtomicBusyMax] = busy_fraction * p.counters.at(metric::kL2CyclesElapsedMax);
  return p;
}

TEST_F(L2Queue, BusyCounterAboveTheCalibratedShareMeansSameAddressSerialization) {
  const KernelProfile base = twice_as_long(scatter_add(false));
  const KernelAnalysis by_requests = analyze(with_busy(base, 0.0), model);
  ASSERT_TRUE(by_requests.l2.evaluated);
  const double u_requests = by_requests.l2.utilization;
  ASSERT_LT(u_requests, 0.70) << "the test needs a request U below the potential mark";
  EXPECT_EQ(by_requests.l2.utilization_basis, L2UtilizationBasis::kRequests);

  const double busy = 0.85 * u_requests + 0.25;  // beyond the 0.15 cross-check tolerance
  const KernelAnalysis a = analyze(with_busy(base, busy), model);
  EXPECT_EQ(a.l2.utilization_basis, L2UtilizationBasis::kBusyCounter);
  EXPECT_NEAR(a.l2.request_utilization, u_requests, 1e-12);
  EXPECT_NEAR(a.l2.utilization, busy / 0.85, 1e-9);
  EXPECT_NEAR(a.l2.busy_cycles, a.l2.utilization * a.l2.inputs.elapsed_cycles, 1e-3);
  ASSERT_TRUE(a.l2.atomic_bound_time_ns);
  EXPECT_NEAR(*a.l2.atomic_bound_time_ns, 2 * 1.47e6 * busy / 0.85, 1e-3);
  EXPECT_EQ(a.l2.utilization_class, classify_l2(busy / 0.85, default_rules()));
  EXPECT_NE(a.l2.basis_text.find("serialized"), std::string::npos) << a.l2.basis_text;
}

TEST_F(L2Queue, SerializationUtilizationIsAtMostOne) {
  const KernelAnalysis a = analyze(with_busy(scatter_add(false), 0.97), model);
  EXPECT_EQ(a.l2.utilization_basis, L2UtilizationBasis::kBusyCounter);
  EXPECT_DOUBLE_EQ(a.l2.utilization, 1.0) << "0.97 / 0.85 is above 1: a share of time is not";
  EXPECT_EQ(a.l2.utilization_class, UtilizationClass::kSevere);
}

TEST_F(L2Queue, BusyCounterWithinTheToleranceKeepsTheRequestsU) {
  const KernelProfile base = twice_as_long(scatter_add(false));
  const double u_requests = analyze(with_busy(base, 0.0), model).l2.utilization;
  const KernelAnalysis a = analyze(with_busy(base, 0.85 * u_requests + 0.10), model);
  EXPECT_EQ(a.l2.utilization_basis, L2UtilizationBasis::kRequests);
  EXPECT_NEAR(a.l2.utilization, u_requests, 1e-12);
}

// A hot slice mostly serving one address (a quarter of a float64 scatter into bin 0, H200 cells
// of red.add.f64: one address 3.0 cycles at busy share 0.333, many lines 1.064 at 0.627): the
// slice's busy cycles per request lie beyond the spread cell's, so its requests serialize on one
// address and U is the one-address service time over the observed cycles per request, not the
// busy counter over the spread cell's share (a lower bound).
TEST_F(L2Queue, HotSliceServingOneAddressTakesTheOneAddressServiceTime) {
  calibration::ServiceTable table = test::make_h200_like_table_with_l2();
  for (calibration::L2Cell& c : table.l2.cells) {
    if (c.op != GlobalAtomicOp::kRedAddF64) continue;
    if (c.spread == AddressSpread::kOneAddress) c.cycles_per_request = 3.0, c.busy_fraction = 0.333;
    if (c.spread == AddressSpread::kManyLines) c.cycles_per_request = 1.064, c.busy_fraction = 0.627;
  }
  const ServiceTimeModel h200(table);
  L2Spec l2;
  l2.red = 16.94e6;
  l2.red_hottest = 5.66e6;
  l2.elapsed_cycles = 2 * 13.69e6;  // twice the recorded kernel's: U below 1
  l2.busy_fraction = 0.30;
  l2.warp_instructions = 16.94e6 / 32.3;
  KernelProfile p = global_only("scatter_f64_hot", l2.elapsed_cycles / kL2ClockMhz * 1000, l2);
  p.global_atomic_op = GlobalAtomicOp::kRedAddF64;
  const KernelAnalysis a = analyze(p, h200);
  ASSERT_TRUE(a.l2.evaluated) << a.l2.not_evaluated_reason;
  ASSERT_EQ(a.l2.spread, AddressSpread::kManyLines);
  const double observed = l2.elapsed_cycles / l2.red_hottest;
  EXPECT_EQ(a.l2.utilization_basis, L2UtilizationBasis::kBusyCounter);
  EXPECT_NEAR(a.l2.utilization, 3.0 / observed, 1e-9) << a.l2.basis_text;
  EXPECT_GT(a.l2.utilization, 0.30 / 0.627) << "above the spread cell's bound";
  EXPECT_NE(a.l2.basis_text.find("100% of the slice's requests serialize on one address"), std::string::npos)
      << a.l2.basis_text;

  // A slower one-address cell (6.0 cycles, busy share 0.333: 2.0 busy cycles per request) puts
  // the slice's 1.45 busy cycles per request inside the mix: f = (1.45 - 0.667) / (2.0 - 0.667).
  for (calibration::L2Cell& c : table.l2.cells)
    if (c.op == GlobalAtomicOp::kRedAddF64 && c.spread == AddressSpread::kOneAddress) c.cycles_per_request = 6.0;
  const KernelAnalysis mixed = analyze(p, ServiceTimeModel(table));
  const double busy_per_request = 0.30 * observed, spread_busy = 1.064 * 0.627, one_busy = 6.0 * 0.333;
  const double f = (busy_per_request - spread_busy) / (one_busy - spread_busy);
  ASSERT_GT(f, 0.1);
  ASSERT_LT(f, 0.9);
  EXPECT_NEAR(mixed.l2.utilization, (f * 6.0 + (1 - f) * 1.064) / observed, 1e-9) << mixed.l2.basis_text;
}

// A warp-aggregated 64-bit ticket counter (tests/gpu/targets/global_ops_app.cu's ticket_u64 on
// the H200: one lane per request, 4.3 requests per instruction like a whole line's): the nearest
// spread in requests per instruction, one_line, is slower than the slice's observed rate and
// the busy counter (60%) is below its saturated share, so the nearest spread that rate allows
// serves instead, and U stays a share of the kernel's time.
TEST_F(L2Queue, SpreadSlowerThanTheObservedRateIsNotChosenWithoutSaturation) {
  L2Spec l2;
  l2.atom = 602048;
  l2.atom_hottest = 270336;
  l2.elapsed_cycles = 453636;
  l2.busy_fraction = 0.596;
  l2.warp_instructions = 602048 / 4.315;
  KernelProfile p = global_only("ticket_u64", l2.elapsed_cycles / kL2ClockMhz * 1000, l2);
  p.global_atomic_op = GlobalAtomicOp::kAtomAddU64;
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.l2.evaluated) << a.l2.not_evaluated_reason;
  EXPECT_EQ(a.l2.basis, L2ServiceBasis::kHotSlice);
  EXPECT_EQ(a.l2.spread, AddressSpread::kManyLines) << a.l2.basis_text;
  EXPECT_LE(a.l2.utilization, 1.0);
  EXPECT_NEAR(a.l2.request_utilization, 270336 * a.l2.service_cycles / 453636, 1e-9);
  EXPECT_NE(a.l2.basis_text.find("does not show it saturated"), std::string::npos) << a.l2.basis_text;

  // With the busy counter at the one_line cell's saturated share the cell stays: U 100%.
  p.counters[metric::kL2AtomicBusyMax] = 0.9 * l2.elapsed_cycles;
  const KernelAnalysis b = analyze(p, model);
  EXPECT_EQ(b.l2.spread, AddressSpread::kOneLine);
  EXPECT_DOUBLE_EQ(b.l2.utilization, 1.0);
}

// PyTorch's index_add_ of half rows (H200, 2026-12-02): 6 requests per ATOM instruction, each
// one sector. Matched on requests per instruction the whole-line cell serves (4-sector requests)
// and U exceeds the kernel's time; matched on sectors per request, where the profile and the
// table have them, the one-sector cell does.
TEST_F(L2Queue, SectorsPerRequestChooseTheSpreadWhereBothHaveThem) {
  L2Spec l2;
  l2.atom = 12578632;
  l2.atom_hottest = 135758;
  l2.elapsed_cycles = 510000;
  l2.busy_fraction = 0.18;
  l2.warp_instructions = 2097152;
  KernelProfile p = global_only("index_add_half_rows", l2.elapsed_cycles / kL2ClockMhz * 1000, l2);
  p.counters.erase(metric::kGlobalRedInst);
  p.counters[metric::kGlobalAtomInst] = 2097152;
  p.global_atomic_op = GlobalAtomicOp::kAtomAddF16x2;
  const KernelAnalysis by_requests = analyze(p, model);
  ASSERT_TRUE(by_requests.l2.evaluated) << by_requests.l2.not_evaluated_reason;
  EXPECT_NE(by_requests.l2.spread, AddressSpread::kManyLines) << by_requests.l2.basis_text;

  calibration::ServiceTable t = test::make_h200_like_table_with_l2();
  for (calibration::L2Cell& c : t.l2.cells)
    c.sectors_per_request = c.spread == AddressSpread::kOneLine || c.spread == AddressSpread::kDistinct ? 4.0 : 1.0;
  const ServiceTimeModel with_sectors{t};
  // The table has sectors, the profile not yet: requests per instruction still decide.
  EXPECT_EQ(analyze(p, with_sectors).l2.spread, by_requests.l2.spread);

  p.counters[metric::kL2AtomSectors] = 12578632;
  p.counters[metric::kL2RedSectors] = 0;
  const KernelAnalysis by_sectors = analyze(p, with_sectors);
  ASSERT_TRUE(by_sectors.l2.evaluated);
  ASSERT_TRUE(by_sectors.l2.inputs.sectors_per_request.has_value());
  EXPECT_DOUBLE_EQ(*by_sectors.l2.inputs.sectors_per_request, 1.0);
  EXPECT_EQ(by_sectors.l2.spread, AddressSpread::kManyLines) << by_sectors.l2.basis_text;
  EXPECT_LT(by_sectors.l2.utilization, by_requests.l2.utilization);
  EXPECT_NE(by_sectors.l2.basis_text.find("sectors per request"), std::string::npos) << by_sectors.l2.basis_text;
  // The profile has sectors, the table not: requests per instruction decide.
  EXPECT_EQ(analyze(p, model).l2.spread, by_requests.l2.spread);

  // Whole-line requests (four sectors each) keep the whole-line cell.
  p.counters[metric::kL2AtomSectors] = 4.0 * 12578632;
  EXPECT_NE(analyze(p, with_sectors).l2.spread, AddressSpread::kManyLines);
}

// A hot address whose busy counter under-reads (float adds, share 0.33) keeps the requests' U.
TEST_F(L2Queue, UnderReadingBusyCounterDoesNotLowerU) {
  const KernelAnalysis a = analyze(scatter_add(true), model);
  EXPECT_EQ(a.l2.utilization_basis, L2UtilizationBasis::kRequests);
  EXPECT_NEAR(a.l2.utilization, a.l2.request_utilization, 1e-12);
}

// A hot address's requests per warp instruction tell how many lanes share its busiest word (a
// lane of a hot word makes 1.5 requests, the one_address cell's 48 over 32 lanes): a
// compiler-aggregated counter (one lane, 1.5 requests) has nothing left to merge in the warp, and
// a k-means accumulation (12 requests: 8 lanes on the busiest word) privatizes between all its
// lanes on one word and full warps over the hot line's words.
TEST_F(L2Queue, RequestsPerInstructionBoundTheHotWordsOfAPrivatizeAndAWarpMerge) {
  auto hot = [&](double requests_per_instruction) {
    L2Spec l2;
    l2.red = 30e6;
    l2.red_hottest = 20e6;
    l2.elapsed_cycles = 40e6 * kL2ClockMhz / 1000;
    l2.busy_fraction = 0.9;
    l2.warp_instructions = l2.red / requests_per_instruction;
    KernelProfile p = global_only("hot", 40e6, l2);
    p.launch.grid = {1056, 1, 1};
    p.launch.max_active_blocks_per_sm = 8;
    p.global_atomic_op = GlobalAtomicOp::kRedAddF32;
    return analyze(p, model);
  };
  const KernelAnalysis one_lane = hot(1.5);
  ASSERT_EQ(one_lane.l2.basis, L2ServiceBasis::kHotAddress);
  EXPECT_EQ(what_if_with(one_lane, WhatIfId::kAggregateInWarp), nullptr) << "one lane per word: nothing to merge";

  const KernelAnalysis kmeans = hot(12);
  ASSERT_EQ(kmeans.l2.basis, L2ServiceBasis::kHotAddress);
  const WhatIf* merge = what_if_with(kmeans, WhatIfId::kAggregateInWarp);
  ASSERT_NE(merge, nullptr);
  EXPECT_NEAR(merge->instructions, 30e6 / 8, 1.0);  // requests / the 8 lanes on the busiest word
  ASSERT_TRUE(merge->least_change_time_ns);         // full warps: 4 words, requests / 2
  EXPECT_GT(*merge->least_change_time_ns, *merge->predicted_time_ns);
  const WhatIf* privatize = what_if_with(kmeans, WhatIfId::kPrivatize);
  ASSERT_NE(privatize, nullptr);
  EXPECT_NE(privatize->basis.find("1 to 32 hot words"), std::string::npos) << privatize->basis;
  EXPECT_NE(privatize->basis.find("8.0 lanes on its busiest word"), std::string::npos) << privatize->basis;
  ASSERT_TRUE(privatize->least_change_time_ns);
  EXPECT_GT(*privatize->least_change_time_ns, *privatize->predicted_time_ns);

  const KernelAnalysis full_warp = hot(48);  // every lane on one word: one address, as before
  const WhatIf* one = what_if_with(full_warp, WhatIfId::kPrivatize);
  ASSERT_NE(one, nullptr);
  EXPECT_NE(one->basis.find("one address"), std::string::npos) << one->basis;
}

// Lanes per sector (docs/model.md): the atomics' distinct sectors per warp instruction, from
// every global instruction's sectors less the loads' and the stores', price a warp merge on spread
// traffic: 32 requests per instruction on 2 sectors merge to 2 (16x fewer), on 31 sectors to
// nothing. Without the counters, or with the term off, the merge is priced as before.
TEST_F(L2Queue, DistinctSectorsPriceAWarpMergeOnSpreadTraffic) {
  auto scatter = [&](std::optional<double> sectors_per_instruction, const Rules& rules) {
    L2Spec s;  // 96 slices, the hottest 20% above the mean, its unit 90% busy
    s.red = 96e6;
    s.red_hottest = 1.2e6;
    s.elapsed_cycles = 1.3e6;
    s.busy_fraction = 0.9;
    s.warp_instructions = 3e6;
    KernelProfile p = global_only("scatter", 1.3e6 * 1000.0 / kL2ClockMhz, s);
    p.global_atomic_op = GlobalAtomicOp::kRedAddF32;
    if (sectors_per_instruction) {
      p.counters[metric::kL1GlobalLoadSectors] = 5e6;
      p.counters[metric::kL2WriteSectors] = 1e6;
      p.counters[metric::kGlobalSectorsSass] = 5e6 + 1e6 + *s.warp_instructions * *sectors_per_instruction;
    }
    return analyze(p, model, rules);
  };
  const KernelAnalysis two = scatter(2.0, default_rules());
  ASSERT_TRUE(two.l2.evaluated);
  ASSERT_TRUE(two.l2.inputs.sectors_per_instruction.has_value());
  EXPECT_NEAR(*two.l2.inputs.sectors_per_instruction, 2.0, 1e-12);
  const WhatIf* merge = what_if_with(two, WhatIfId::kAggregateInWarp);
  ASSERT_NE(merge, nullptr) << "16 lanes per sector merge";
  EXPECT_NEAR(merge->instructions, 96e6 / 16.0, 1.0) << "one request per distinct sector";
  EXPECT_GT(merge->speedup, 1.5);
  EXPECT_EQ(what_if_with(two, WhatIfId::kAggregateHotLanes), nullptr) << "the measured merge replaces the estimate";

  const KernelAnalysis distinct = scatter(31.0, default_rules());
  EXPECT_EQ(what_if_with(distinct, WhatIfId::kAggregateInWarp), nullptr) << "about a lane per sector";
  EXPECT_EQ(what_if_with(distinct, WhatIfId::kAggregateHotLanes), nullptr);

  // A difference under one sector per instruction (spilled stores among the writes) is unknown.
  const KernelAnalysis spills = scatter(0.5, default_rules());
  EXPECT_FALSE(spills.l2.inputs.sectors_per_instruction.has_value());
  EXPECT_EQ(what_if_with(spills, WhatIfId::kAggregateInWarp), nullptr) << "spread: no merge without the measure";

  Rules off = default_rules();
  off.switch_off(ModelTerm::kLanesPerSector);
  const KernelAnalysis old = scatter(2.0, off);
  EXPECT_EQ(what_if_with(old, WhatIfId::kAggregateInWarp), nullptr);
  EXPECT_NE(what_if_with(old, WhatIfId::kAggregateHotLanes), nullptr) << "the hot-slice estimate as before";
  const KernelAnalysis unmeasured = scatter(std::nullopt, default_rules());
  EXPECT_EQ(what_if_with(unmeasured, WhatIfId::kAggregateInWarp), nullptr);
}

// The request port (docs/model.md): a smooth image's 32768-bin histogram (held-out round 8,
// H100, ncu): 4.2 M RED requests, 8 per instruction on 2.73 distinct sectors, the hottest slice's
// requests x S a third of the time, while the SMs' L1 handed or held requests for the crossbar 80%
// of their time, 89% of them atomics. The port binds: U 71%, basis request_port, and the warp
// merge scales the port's time with the requests. Without the port counters, or with the term
// off, the slice alone: not bound.
TEST_F(L2Queue, RequestPortHeldByTheAtomicsBindsWhereTheSliceDoesNot) {
  auto smooth = [&](bool port_counters, const Rules& rules) {
    KernelProfile p = red_on_few_lines("smooth_pixel_hist", 0.36);
    p.counters[metric::kL1GlobalLoadSectors] = 2097152;
    p.counters[metric::kL2WriteSectors] = 0;
    p.counters[metric::kGlobalSectorsSass] = 2097152 + 524288 * 2.73;
    if (port_counters) read_port(p, 5.85e4, 1.50e5, 2.617e5, 4.2e6 + 524288);
    return analyze(p, model, rules);
  };
  const KernelAnalysis bound = smooth(true, default_rules());
  ASSERT_TRUE(bound.l2.evaluated);
  ASSERT_TRUE(bound.l2.port_utilization.has_value());
  EXPECT_NEAR(*bound.l2.port_utilization, (5.85e4 + 1.5e5) / 2.617e5 * 4.2e6 / (4.2e6 + 524288), 1e-9);
  EXPECT_EQ(bound.l2.utilization_basis, L2UtilizationBasis::kRequestPort);
  EXPECT_NEAR(bound.l2.utilization, *bound.l2.port_utilization, 1e-12);
  EXPECT_LT(bound.l2.request_utilization, 0.7) << "the slice alone is not bound";
  EXPECT_EQ(bound.l2.utilization_class, UtilizationClass::kPotential);
  EXPECT_EQ(bound.binding_unit, BindingUnit::kL2AtomicUnit);
  const WhatIf* merge = what_if_with(bound, WhatIfId::kAggregateInWarp);
  ASSERT_NE(merge, nullptr);
  // The port's time (71% of the kernel) over 2.93 lanes per sector, after the rest (29%).
  const double lanes = (4.2e6 / 524288) / 2.73;
  EXPECT_NEAR(merge->speedup, 1.0 / (1.0 - *bound.l2.port_utilization + *bound.l2.port_utilization / lanes), 0.02);

  const KernelAnalysis unmeasured = smooth(false, default_rules());
  EXPECT_FALSE(unmeasured.l2.port_utilization.has_value());
  // Not bound without the port's counters: the finding says what was not read and how to read it.
  const auto idle = std::find_if(unmeasured.findings.begin(), unmeasured.findings.end(),
                                 [](const Finding& f) { return f.kind == FindingKind::kUtilization; });
  ASSERT_NE(idle, unmeasured.findings.end());
  EXPECT_NE(idle->recommendation.find("was not read"), std::string::npos) << idle->recommendation;
  EXPECT_EQ(unmeasured.l2.utilization_basis, L2UtilizationBasis::kRequests);
  EXPECT_EQ(unmeasured.binding_unit, BindingUnit::kNone);
  Rules off = default_rules();
  off.switch_off(ModelTerm::kRequestPort);
  const KernelAnalysis old = smooth(true, off);
  EXPECT_EQ(old.binding_unit, BindingUnit::kNone);
  EXPECT_NEAR(old.l2.utilization, unmeasured.l2.utilization, 1e-12);
}

// A port the atomics share with many loads (coo_spmv on an H100: port occupied 84%, the atomics 58%
// of the SMs' requests, ablation 2.11x): their own part of the port's time (49%) is under the
// potential mark, but the port is saturated and without them it would take 42% of its time, so the
// port binds the kernel through them. A small share (under 1 - 1/1.25) or a port below the mark
// does not; with the term off, the slice alone.
TEST_F(L2Queue, SaturatedPortBindsThroughTheAtomicsShareOfItsRequests) {
  auto gather_and_update = [&](double occupancy, double share, const Rules& rules) {
    KernelProfile p = red_on_few_lines("coo_spmv", 0.30);
    read_port(p, 0.4 * occupancy * 2.617e5, 0.6 * occupancy * 2.617e5, 2.617e5, 4.2e6 / share);
    return analyze(p, model, rules);
  };
  const KernelAnalysis bound = gather_and_update(0.84, 0.58, default_rules());
  ASSERT_TRUE(bound.l2.evaluated);
  EXPECT_NEAR(*bound.l2.port_utilization, 0.84 * 0.58, 1e-9);
  EXPECT_NEAR(bound.l2.utilization, 0.84 * 0.58, 1e-9) << "U stays the atomics' own part of the port's time";
  EXPECT_TRUE(bound.l2.bound_by_port);
  EXPECT_EQ(bound.l2.utilization_class, UtilizationClass::kPotential);
  EXPECT_EQ(bound.binding_unit, BindingUnit::kL2AtomicUnit);
  const auto port_finding = std::find_if(bound.findings.begin(), bound.findings.end(), [](const Finding& f) {
    return f.title.find("saturated") != std::string::npos;
  });
  ASSERT_NE(port_finding, bound.findings.end()) << "the L2 finding names the saturated port";
  EXPECT_FALSE(port_finding->what_ifs.empty());

  const KernelAnalysis small_share = gather_and_update(0.84, 0.15, default_rules());
  EXPECT_FALSE(small_share.l2.bound_by_port) << "without them the port would be 1.18x faster";
  EXPECT_EQ(small_share.binding_unit, BindingUnit::kNone);
  const KernelAnalysis idle_port = gather_and_update(0.60, 0.58, default_rules());
  EXPECT_FALSE(idle_port.l2.bound_by_port) << "a port under the potential mark does not bind";
  EXPECT_EQ(idle_port.binding_unit, BindingUnit::kNone);
  Rules off = default_rules();
  off.switch_off(ModelTerm::kRequestPort);
  EXPECT_EQ(gather_and_update(0.84, 0.58, off).binding_unit, BindingUnit::kNone);
}

}  // namespace
}  // namespace atomq::model
