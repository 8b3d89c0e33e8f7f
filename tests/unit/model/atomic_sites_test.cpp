// Atomic sites from per-instruction counts (atomic_sites.hpp) and the cas_retry finding,
// on listings shaped like the compiler's (docs/model.md, "Atomic sites").
#include <gtest/gtest.h>

#include "atomq/model/analysis.hpp"
#include "atomq/model/atomic_sites.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "instruction_fixture.hpp"
#include "model_fixture.hpp"

namespace atomq::model {
namespace {

using test::rec;

// One warp of 32 lanes on one word: 32 CAST.SPIN per entry, lanes 32 + 31 + ... + 1.
InstructionProfile float_cas_loop(double entries) {
  InstructionProfile p;
  p.launches = 1;
  p.has_listing = true;
  p.records = {rec(0x100, "LDS", entries, 32 * entries, entries),
               rec(0x110, "FADD", 32 * entries, 528 * entries),
               rec(0x120, "ATOMS.CAST.SPIN", 32 * entries, 528 * entries, 64 * entries, "P0, [R3], R5, R6"),
               rec(0x130, "ISETP.NE.AND", 32 * entries, 528 * entries),
               rec(0x140, "BRA", 32 * entries, 528 * entries, 0, "0x110", "@!P0"),
               rec(0x150, "EXIT", entries, 32 * entries)};
  p.loops = {{0x110, 0x140}};
  return p;
}

TEST(AtomicSites, CasLoopAttemptsFromTheLoopEntry) {
  const std::vector<AtomicSite> sites = atomic_sites(float_cas_loop(100));
  ASSERT_EQ(sites.size(), 1u);
  const AtomicSite& s = sites[0];
  EXPECT_TRUE(s.is_cas);
  EXPECT_TRUE(s.in_loop);
  EXPECT_EQ(s.loop_entry_offset, 0x100);
  EXPECT_DOUBLE_EQ(*s.attempts_per_warp_entry, 32);
  EXPECT_DOUBLE_EQ(*s.attempts_per_update, 16.5);
  EXPECT_DOUBLE_EQ(s.wavefronts_per_instruction, 2);
  EXPECT_DOUBLE_EQ(s.busy_share, 1.0);  // of the atomics' wavefronts: the LDS is not one
}

TEST(AtomicSites, ConflictingSiteTakesTheBusyTimeAndAggregationIsNamed) {
  InstructionProfile p;
  p.launches = 2;
  p.has_listing = true;
  p.records = {rec(0x80, "ATOMS.POPC.INC.32", 200, 6400, 200, "RZ, [R3+URZ]"),
               rec(0x90, "ATOMS.ADD", 200, 6400, 6400, "R6, [R4], R13"),
               rec(0xa0, "ATOMS.ADD", 200, 200, 200, "R12, [UR5], R7", "@P0")};
  const std::vector<AtomicSite> sites = atomic_sites(p);
  ASSERT_EQ(sites.size(), 3u);
  EXPECT_DOUBLE_EQ(sites[0].wavefronts_per_instruction, 1);
  EXPECT_DOUBLE_EQ(sites[1].wavefronts_per_instruction, 32);
  EXPECT_DOUBLE_EQ(sites[1].busy_share, 6400.0 / 6800.0);
  EXPECT_DOUBLE_EQ(sites[1].executions_per_launch, 100);
  EXPECT_FALSE(sites[1].warp_aggregated);
  EXPECT_TRUE(sites[2].warp_aggregated);
  EXPECT_DOUBLE_EQ(sites[2].lanes_per_instruction, 1);
  EXPECT_EQ(busiest_shared_site(sites), &sites[1]);
  p.has_listing = false;  // counts of another build: no sites
  EXPECT_TRUE(atomic_sites(p).empty());
}

TEST(AtomicSites, NoEntryCountWhenTheLoopIsJumpedInto) {
  InstructionProfile p = float_cas_loop(10);
  p.records[0] = rec(0x100, "BRA", 10, 320, 0, "0x110");  // unconditional: not a fall-through entry
  const std::vector<AtomicSite> sites = atomic_sites(p);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_FALSE(sites[0].attempts_per_update);
}

TEST(CasRetry, FindingClassAndWhatIf) {
  const ServiceTimeModel model(test::make_h200_like_table());
  test::ProfileSpec spec;
  spec.name = "float_hist";
  KernelProfile profile = test::make_profile(spec);
  profile.instructions = float_cas_loop(1000);
  const KernelAnalysis a = analyze(profile, model);
  ASSERT_TRUE(a.evaluated);
  const Finding* f = a.find(FindingKind::kCasRetry);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("16.5 attempts per update"), std::string::npos) << f->title;
  EXPECT_EQ(a.shared_unit_class, UtilizationClass::kSevere);  // 16.5 >= 8, the loop holds most instructions
  ASSERT_EQ(f->what_ifs.size(), 2u);  // the issue-rate bound, then time proportional to instructions
  EXPECT_EQ(f->what_ifs[0].id, WhatIfId::kCasLoopNativeBestCase);
  EXPECT_EQ(f->what_ifs[1].id, WhatIfId::kCasLoopNativeWorstCase);
  EXPECT_GT(f->what_ifs[1].speedup, 5.0);
  EXPECT_GE(f->what_ifs[0].speedup, f->what_ifs[1].speedup);
  // Both are the same fix, one native atomic per warp update: its service time, and the unit's
  // load over the shorter kernel (never the "S 0 cycles, U 0%" of a what-if that models nothing).
  for (const WhatIf& w : f->what_ifs) {
    EXPECT_GT(w.service_cycles, 0.0) << w.change;
    EXPECT_DOUBLE_EQ(w.service_cycles, f->what_ifs[0].service_cycles);
    EXPECT_NEAR(w.predicted_utilization, w.instructions * w.service_cycles * w.speedup / a.inputs.active_cycles_sum,
                1e-9);
    EXPECT_GT(w.predicted_utilization, 0.0) << w.change;
  }
  EXPECT_FALSE(a.has(FindingKind::kHighUtilizationLowConflict));
  EXPECT_FALSE(a.has(FindingKind::kCasHeavy));

  profile.instructions = float_cas_loop(1000);
  profile.instructions->records[2].lanes = 32000;  // one attempt per lane: no retries
  EXPECT_FALSE(analyze(profile, model).has(FindingKind::kCasRetry));
}

// Too few retries for cas_retry (1.6 attempts per update), but a CAS-heavy stream: its what-if
// counts the measured attempts instead of assuming none.
TEST(CasRetry, CasHeavyTakesTheMeasuredAttempts) {
  const ServiceTimeModel model(test::make_h200_like_table());
  test::ProfileSpec spec;
  spec.cas_share = 1.0;
  KernelProfile profile = test::make_profile(spec);
  profile.instructions = float_cas_loop(1000);
  profile.instructions->records[2].lanes = 1.6 * 32000;
  const KernelAnalysis a = analyze(profile, model);
  EXPECT_FALSE(a.has(FindingKind::kCasRetry));
  const Finding* f = a.find(FindingKind::kCasHeavy);
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->what_ifs.empty());
  EXPECT_EQ(f->what_ifs[0].id, WhatIfId::kNativeFetchAndOp);
  EXPECT_NE(f->what_ifs[0].change.find("1.6 attempts per update measured"), std::string::npos) << f->what_ifs[0].change;
  profile.instructions.reset();  // no counts: none assumed, a smaller predicted gain
  const KernelAnalysis unknown = analyze(profile, model);
  const Finding* g = unknown.find(FindingKind::kCasHeavy);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->what_ifs[0].id, WhatIfId::kNativeFetchAndOp);
  EXPECT_NE(g->what_ifs[0].change.find("retries unknown"), std::string::npos);
  EXPECT_GT(f->what_ifs[0].speedup, g->what_ifs[0].speedup);
}

// An unrolled source loop: one CAS loop per copy, each a small share of the instructions;
// taken together they hold the kernel.
TEST(CasRetry, UnrolledCopiesAddUp) {
  InstructionProfile one = float_cas_loop(1000), p = one;
  p.records.pop_back();  // the first copy's EXIT
  for (InstructionRecord r : one.records) {
    r.offset += 0x60;
    p.records.push_back(r);
  }
  p.loops.push_back({0x170, 0x1a0});
  const std::vector<AtomicSite> sites = atomic_sites(p);
  ASSERT_EQ(sites.size(), 2u);
  const CasRetryTotals t = cas_retry_totals(sites);
  EXPECT_EQ(t.sites, 2);
  EXPECT_DOUBLE_EQ(t.attempts_per_update, 16.5);
  EXPECT_DOUBLE_EQ(t.attempts_per_warp_entry, 32);
  EXPECT_GT(t.loop_instruction_share, 0.9);
  EXPECT_LT(*sites[0].loop_instruction_share, 0.5);
}

TEST(CasRetry, InstructionsRoundTripInTheProfile) {
  test::ProfileSpec spec;
  KernelProfile p = test::make_profile(spec);
  p.instructions = float_cas_loop(7);
  const KernelProfile q = parse_kernel_profile(serialize_kernel_profile(p), "mem");
  ASSERT_TRUE(q.instructions);
  ASSERT_EQ(q.instructions->records.size(), 6u);
  EXPECT_EQ(q.instructions->records[2].opcode, "ATOMS.CAST.SPIN");
  EXPECT_EQ(q.instructions->records[4].predicate, "@!P0");
  EXPECT_DOUBLE_EQ(q.instructions->records[2].lanes, 528 * 7);
  ASSERT_EQ(q.instructions->loops.size(), 1u);
  EXPECT_EQ(q.instructions->loops[0].head, 0x110);
  EXPECT_TRUE(q.instructions->has_listing);
}

}  // namespace
}  // namespace atomq::model
