// Hopper's other atomic paths (model/include/atomq/model/atomic_paths.hpp): the opcodes the
// H200's SASS shows for each (cuobjdump -sass of sm_90a code: a cluster peer's shared memory
// through map_shared_rank or mapa is a generic ATOM, red.async is REDAS, cp.reduce.async.bulk is
// UBLKRED, float2/float4 atomicAdd is .F32x2/.F32x4, system scope is .STRONG.SYS), and the
// analysis of kernels on them: named, never costed as another op.
#include <gtest/gtest.h>

#include <algorithm>

#include "atomq/model/analysis.hpp"
#include "atomq/model/atomic_paths.hpp"
#include "atomq/model/metric_names.hpp"
#include "l2_analysis_fixture.hpp"

namespace atomq::model {
namespace {

using test::L2Spec;

TEST(AtomicPaths, FromTheOpcodesTheH200Emits) {
  EXPECT_EQ(sass_atomic_path("ATOMS.ADD"), AtomicPath::kSharedUnit);
  EXPECT_EQ(sass_atomic_path("ATOMS.CAST.SPIN"), AtomicPath::kSharedUnit);
  EXPECT_EQ(sass_atomic_path("REDG.E.ADD.STRONG.GPU"), AtomicPath::kL2);
  EXPECT_EQ(sass_atomic_path("REDG.E.ADD.STRONG.SYS"), AtomicPath::kL2);  // the scope, not the memory
  EXPECT_EQ(sass_atomic_path("ATOMG.E.CAS.STRONG.SYS"), AtomicPath::kL2);
  EXPECT_EQ(sass_atomic_path("REDG.E.ADD.STRONG.SM"), AtomicPath::kL2);
  EXPECT_EQ(sass_atomic_path("ATOMG.E.ADD.F16x2.RN.STRONG.GPU"), AtomicPath::kL2);  // one packed word
  EXPECT_EQ(sass_atomic_path("REDG.E.ADD.F32x2.FTZ.RN.STRONG.GPU"), AtomicPath::kVectorL2);
  EXPECT_EQ(sass_atomic_path("ATOMG.E.ADD.F32x4.FTZ.RN.STRONG.GPU"), AtomicPath::kVectorL2);
  EXPECT_EQ(sass_atomic_path("ATOM.E.ADD.STRONG.GPU"), AtomicPath::kGeneric);  // DSMEM or global
  EXPECT_EQ(sass_atomic_path("RED.E.ADD.STRONG.GPU"), AtomicPath::kGeneric);
  EXPECT_EQ(sass_atomic_path("REDAS.ADD"), AtomicPath::kDsmem);
  EXPECT_EQ(sass_atomic_path("UBLKRED.G.S.ADD"), AtomicPath::kBulkReduction);
  EXPECT_EQ(sass_atomic_path("UBLKRED.G.S.ADD.F32.RN"), AtomicPath::kBulkReduction);
  for (const char* not_atomic : {"UTMACMDFLUSH", "SYNCS.ARRIVE.TRANS64", "LDG.E", "ATOMSX", "", "MEMBAR.SC.GPU"})
    EXPECT_FALSE(sass_atomic_path(not_atomic).has_value()) << not_atomic;
}

TEST(AtomicPaths, GenericSitesResolvedByWhichCountersMoved) {
  KernelProfile p;
  EXPECT_EQ(resolve_generic_path(p, false), AtomicPath::kGeneric);
  p.counters[metric::kDsmemAtomRequests] = 135168;
  EXPECT_EQ(resolve_generic_path(p, false), AtomicPath::kDsmem);
  p.counters[metric::kL1GlobalRedRequests] = 2112;  // a REDG beside it does not claim a generic ATOM
  EXPECT_EQ(resolve_generic_path(p, false), AtomicPath::kDsmem);
  EXPECT_EQ(resolve_generic_path(p, true), AtomicPath::kGeneric);
  p.counters[metric::kDsmemAtomRequests] = 0;
  EXPECT_EQ(resolve_generic_path(p, true), AtomicPath::kL2);
}

class OtherPaths : public ::testing::Test {
 protected:
  ServiceTimeModel model{test::make_h200_like_table_with_l2()};

  // A kernel without shared atomics, with `l2` at the slices and 107 us long (dsmem_add's time).
  static KernelProfile kernel(const L2Spec& l2) {
    test::ProfileSpec spec;
    KernelProfile p = test::make_profile(spec);
    for (const char* m : {metric::kSharedAtomInst, metric::kSharedAtomInstAlu, metric::kSharedAtomInstCas,
                          metric::kSharedAtomWavefronts})
      p.counters[m] = 0;
    p.counters[metric::kDurationNs] = 107264;
    test::add_l2_counters(p, l2);
    return p;
  }

  // dsmem_add on the H200 (264 blocks of 256 threads in clusters of 2, 64 atomicAdds each into
  // the peer's bins; ncu): 135168 DSMEM atomic requests, 2112 REDG to the output.
  static KernelProfile dsmem_add() {
    L2Spec l2;
    l2.red = 3168;
    l2.red_hottest = 1056;
    l2.elapsed_cycles = 107264 * test::kL2ClockMhz / 1000;
    l2.warp_instructions = 2112;
    KernelProfile p = kernel(l2);
    p.counters[metric::kDsmemAtomRequests] = 135168;
    return p;
  }
};

// dsmem_add with the bundled-like table without a DSMEM section.
TEST_F(OtherPaths, DsmemAtomicsAreNamedAndTheKernelIsNotCalledUnbound) {
  KernelProfile p = dsmem_add();
  p.counters[metric::kDsmemRequestBusyMax] = 65568;
  const KernelAnalysis a = analyze(p, model);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kInsufficientData);
  EXPECT_EQ(a.binding_unit, BindingUnit::kNone);
  ASSERT_FALSE(a.findings.empty());
  EXPECT_EQ(a.findings.front().kind, FindingKind::kUnmodelledPath);
  EXPECT_EQ(a.findings.front().title, "DSMEM atomics: not modelled");
  EXPECT_TRUE(a.l2.evaluated);  // its REDG are costed; DSMEM requests never reach the slices
}

// A table with a DSMEM section: conflict-free atomicAdd 2 SM cycles per warp request, the busy
// counter reading 90% at saturation; one word per warp 40 cycles, 50% busy.
calibration::DsmemSection synthetic_dsmem_section() {
  calibration::DsmemSection d;
  d.wall_seconds = 1;
  calibration::DsmemCell fast{calibration::DsmemOp::kAtomicAdd, 256, 2, 64, 1e6, 2.0, 1.98, 2.02, 0.02, 0.90, 1e6};
  calibration::DsmemCell slow{calibration::DsmemOp::kAtomicAdd, 1, 2, 64, 1e6, 40.0, 39.5, 40.5, 0.025, 0.50, 1e7};
  d.cells = {slow, fast};
  return d;
}

// With the table's DSMEM section the same kernel is evaluated: U is the larger of the busy counter
// over its saturated reading and the requests at the conflict-free S; the path is named with its U
// and what binds, and the class is no longer left open.
TEST_F(OtherPaths, DsmemPathEvaluatedFromItsSection) {
  calibration::ServiceTable t = test::make_h200_like_table_with_l2();
  t.dsmem = synthetic_dsmem_section();
  const ServiceTimeModel with_dsmem(t);
  KernelProfile p = dsmem_add();
  const double active_max = *p.counter(metric::kCyclesActiveMax);
  const double active_avg = *p.counter(metric::kCyclesActiveAvg);
  p.counters[metric::kDsmemRequestBusyMax] = 0.27 * active_max;  // 30% of the saturated reading
  const KernelAnalysis a = analyze(p, with_dsmem);
  ASSERT_TRUE(a.dsmem.evaluated) << a.dsmem.not_evaluated_reason;
  EXPECT_DOUBLE_EQ(a.dsmem.service_cycles, 2.0);  // the conflict-free cell
  EXPECT_NEAR(a.dsmem.busy_utilization, 0.30, 1e-9);
  EXPECT_NEAR(a.dsmem.request_utilization, 135168.0 / 132 * 2.0 / active_avg, 1e-9);
  EXPECT_DOUBLE_EQ(a.dsmem.utilization, std::max(a.dsmem.busy_utilization, a.dsmem.request_utilization));
  EXPECT_NE(a.utilization_class, UtilizationClass::kInsufficientData);
  EXPECT_NE(a.binding_unit, BindingUnit::kDsmemPath);
  EXPECT_FALSE(a.has(FindingKind::kUnmodelledPath));
  const Finding* f = a.find(FindingKind::kDsmemPath);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("U 30%"), std::string::npos) << f->title;
  EXPECT_EQ(f->recommendation.rfind("Not the DSMEM path: ", 0), 0u) << f->recommendation;
}

// A saturated request path binds the kernel: severe, the DSMEM finding first, its busy time the
// atomic floor of the predicted time. Without the section the same profile stays unmodelled.
TEST_F(OtherPaths, SaturatedDsmemPathBindsTheKernel) {
  calibration::ServiceTable t = test::make_h200_like_table_with_l2();
  t.dsmem = synthetic_dsmem_section();
  const ServiceTimeModel with_dsmem(t);
  KernelProfile p = kernel(L2Spec{});
  p.counters[metric::kDsmemAtomRequests] = 4.0e6;
  p.counters[metric::kDsmemRequestBusyMax] = 0.88 * *p.counter(metric::kCyclesActiveMax);
  const KernelAnalysis a = analyze(p, with_dsmem);
  ASSERT_TRUE(a.dsmem.evaluated) << a.dsmem.not_evaluated_reason;
  EXPECT_EQ(a.dsmem.utilization_class, UtilizationClass::kSevere);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kSevere);
  EXPECT_EQ(a.binding_unit, BindingUnit::kDsmemPath);
  ASSERT_FALSE(a.findings.empty());
  EXPECT_EQ(a.findings.front().kind, FindingKind::kDsmemPath);
  EXPECT_EQ(a.time.bound_by, "atomic units");
  // Keeping the bins local frees the path's busy time (88% / 90% of the kernel's) for the shared
  // unit's few cycles per warp atomic: the recommended fix, its interval above 1x.
  const WhatIf* w = a.recommended_what_if();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->id, WhatIfId::kBlockLocalBins);
  EXPECT_GT(w->gain_low(), 1.0);
  EXPECT_GE(w->gain_high(), w->gain_low());
  const KernelAnalysis without = analyze(p, model);
  EXPECT_FALSE(without.dsmem.evaluated);
  EXPECT_EQ(without.findings.front().kind, FindingKind::kUnmodelledPath);
}

// bulk_reduce<float> (4224 cp.reduce.async.bulk of 4 KiB): the L2 counts 202752 RED requests
// that are no calibrated scalar op, so the L2 queue is not evaluated on them.
TEST_F(OtherPaths, BulkReductionsLeaveTheL2Unevaluated) {
  L2Spec l2;
  l2.red = 202752;
  l2.red_hottest = 6336;
  l2.elapsed_cycles = 14912 * test::kL2ClockMhz / 1000;
  KernelProfile p = kernel(l2);
  p.counters[metric::kBulkReductionInst] = 4224;  // one UBLKRED per bulk reduction
  const KernelAnalysis a = analyze(p, model);
  EXPECT_FALSE(a.l2.evaluated);
  EXPECT_NE(a.l2.not_evaluated_reason.find("bulk reductions"), std::string::npos) << a.l2.not_evaluated_reason;
  EXPECT_EQ(a.utilization_class, UtilizationClass::kInsufficientData);
  EXPECT_TRUE(a.has(FindingKind::kUnmodelledPath));
}

TEST_F(OtherPaths, VectorAtomicsAndHostMemoryAreNotCostedAsScalarRequests) {
  L2Spec l2;
  l2.red = 492852;
  l2.red_hottest = 17384;
  l2.elapsed_cycles = 29408 * test::kL2ClockMhz / 1000;
  KernelProfile vector = kernel(l2);
  vector.sass_atomic_paths = {{AtomicPath::kL2, 5}, {AtomicPath::kVectorL2, 10}};
  // A table calibrated before the vector ops (the bundled one of 2026-12-03): no cells for them.
  calibration::ServiceTable old_table = test::make_h200_like_table_with_l2();
  auto vector_op = [](GlobalAtomicOp op) { return op == GlobalAtomicOp::kRedAddF32x2 || op == GlobalAtomicOp::kRedAddF32x4; };
  auto& ops = old_table.l2.ops;
  ops.erase(std::remove_if(ops.begin(), ops.end(), vector_op), ops.end());
  for (auto* cells : {&old_table.l2.cells, &old_table.l2.law_cells})
    cells->erase(std::remove_if(cells->begin(), cells->end(), [&](const calibration::L2Cell& c) { return vector_op(c.op); }),
                 cells->end());
  const ServiceTimeModel old_model(old_table);
  const KernelAnalysis v = analyze(vector, old_model);
  EXPECT_FALSE(v.l2.evaluated);
  EXPECT_EQ(v.findings.front().title, "Vector atomics: not modelled");

  // A table with the vector ops' cells costs them: nothing unmodelled.
  EXPECT_TRUE(unmodelled_path_traffic(vector, {GlobalAtomicOp::kRedAddF32x2, GlobalAtomicOp::kRedAddF32x4}).empty());
  EXPECT_EQ(unmodelled_path_traffic(vector, {GlobalAtomicOp::kRedAddF32x2}).size(), 1u);

  KernelProfile host = kernel(l2);
  host.counters[metric::kL1GlobalRedRequests] = 33792;  // count_system's REDG.E.ADD.STRONG.SYS
  host.counters[metric::kL2HostRedRequests] = 98208;
  const KernelAnalysis h = analyze(host, model);
  EXPECT_FALSE(h.l2.evaluated);
  EXPECT_EQ(h.findings.front().title, "Host-memory atomics: not modelled");

  KernelProfile plain = kernel(l2);  // the same counters on device memory, scalar: costed
  EXPECT_TRUE(analyze(plain, model).l2.evaluated);
  EXPECT_FALSE(analyze(plain, model).has(FindingKind::kUnmodelledPath));
}

// A modelled unit that binds keeps its class; the unmodelled path is named after it.
TEST_F(OtherPaths, ABindingModelledUnitKeepsItsClass) {
  L2Spec l2;
  l2.red = 100.6e6;
  l2.red_hottest = 99.0e6;
  l2.elapsed_cycles = 50.2e6 * test::kL2ClockMhz / 1000;
  l2.busy_fraction = 0.9;
  l2.warp_instructions = 2097152;
  KernelProfile p = kernel(l2);
  p.counters[metric::kDurationNs] = 50.2e6;
  p.global_atomic_op = GlobalAtomicOp::kRedAddU32;
  p.counters[metric::kDsmemRedAsyncRequests] = 1000;
  const KernelAnalysis a = analyze(p, model);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kSevere);
  EXPECT_EQ(a.binding_unit, BindingUnit::kL2AtomicUnit);
  EXPECT_NE(a.findings.front().kind, FindingKind::kUnmodelledPath);
  EXPECT_TRUE(a.has(FindingKind::kUnmodelledPath));
}

// A system-aperture request in a kernel whose SMs sent no atomic is not the kernel's (the H200
// showed one in a launch of multi_kernel_app's no_atomics), nor is one per launch of a kernel
// that sent atomics.
TEST_F(OtherPaths, ASystemApertureRequestWithoutAtomicsIsNoHostAtomic) {
  L2Spec none;
  none.red = 1;
  none.red_hottest = 1;
  none.elapsed_cycles = 64400 * test::kL2ClockMhz / 1000;
  KernelProfile p = kernel(none);
  p.counters[metric::kL2HostRedRequests] = 1;
  EXPECT_TRUE(unmodelled_path_traffic(p, {}).empty());
  EXPECT_EQ(analyze(p, model).utilization_class, UtilizationClass::kNotAtomicBound);
  p.counters[metric::kL1GlobalRedRequests] = 4224;
  EXPECT_TRUE(unmodelled_path_traffic(p, {}).empty());
  p.counters[metric::kL2HostRedRequests] = 2;
  ASSERT_EQ(unmodelled_path_traffic(p, {}).size(), 1u);
  EXPECT_EQ(unmodelled_path_traffic(p, {}).front().path, AtomicPath::kHostMemory);
}

}  // namespace
}  // namespace atomq::model
