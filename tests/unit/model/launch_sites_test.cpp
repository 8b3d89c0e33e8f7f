// Per-instruction counts of one launch applied to every launch of its kernel (launch_sites.hpp):
// exact on the launch they measured; on the others derived from each launch's own counters with
// the structure they measured (docs/model.md, "Measured and derived launches").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "atomq/model/analysis.hpp"
#include "atomq/model/analysis_json.hpp"
#include "atomq/model/launch_sites.hpp"
#include "atomq/model/metric_names.hpp"
#include "instruction_fixture.hpp"
#include "model_fixture.hpp"

namespace atomq::model {
namespace {

constexpr const char* kSymbol = "_Z10float_histPKjPfj";
constexpr double kEntries = 524288;  // warp entries into the CAS loop: 16 Mi samples, 32 lanes each

using test::rec;

// A grid-stride histogram with the compiler's float CAS loop, shaped like the H200 listing of
// hist_scatter_add_private: per sample an outer iteration (load, bin, BSSY: the loop's entry),
// then LDS / FADD / ATOMS.CAST.SPIN / BRA once per attempt. `cas` CAS executions, `cas_lanes`
// lanes over them (lanes attempting; each lane's update ends with one success).
InstructionProfile hist_counts(double entries, double cas, double cas_lanes) {
  InstructionProfile p;
  p.launches = 1;
  p.has_listing = true;
  const double warps = 264 * 8;
  p.records = {rec(0x0a0, "IMAD", warps, 32 * warps),
               rec(0x0e0, "LDG.E", entries, 32 * entries),
               rec(0x0f0, "IMAD", entries, 32 * entries),
               rec(0x100, "BSSY", entries, 32 * entries),
               rec(0x110, "LDS", cas, cas_lanes, cas),
               rec(0x120, "FADD", cas, cas_lanes),
               rec(0x130, "ATOMS.CAST.SPIN", cas, cas_lanes, 2 * cas),
               rec(0x140, "BRA", cas, cas_lanes - 32 * entries, 0, "", "@!P0"),
               rec(0x150, "BSYNC", entries, 32 * entries),
               rec(0x160, "BRA", entries, 32 * entries, 0, "", "@!P1"),
               rec(0x170, "EXIT", warps, 32 * warps)};
  p.loops = {{0x0e0, 0x160}, {0x110, 0x140}};
  return p;
}

// The launch's counters: `cas` shared CAS warp instructions taking `cycles_per_sm` on each SM.
KernelProfile hist_launch(double cas, double cycles_per_sm, long long launch_index) {
  test::ProfileSpec spec;
  spec.name = "float_hist(unsigned int const*, float*, unsigned int)";
  spec.instructions = cas;
  spec.cas_share = 1.0;
  spec.wavefronts_per_instruction = 2;
  spec.active_lanes.reset();  // CAST.SPIN: e is not counted
  spec.occupancy_pct = 95;
  spec.active_cycles_sum = 132 * cycles_per_sm;
  KernelProfile p = test::make_profile(spec);
  p.symbol = kSymbol;
  p.symbol_launch = launch_index;
  p.shared_cas_spin = true;
  p.counters[metric::kDurationNs] = cycles_per_sm / 1.98;
  return p;
}

// Measured on the H200 (2026-12-02, ncu --section SourceCounters on one program launching a float
// CAS-loop histogram kernel on a uniform, then a one-value input: docs/model.md, "Measured and
// derived launches"; 528 x 512 threads, 16 Mi samples into 1024 shared bins): the
// uniform launch's CAS loop ran 2073789 times for 524288 warp entries (3.96 per entry) with
// 26378785 lanes (1.57 attempts per update); the one-value launch after it ran it 109777084
// times with 1826214582 lanes: 0.520 of the 32 entering lanes per execution, against 0.398.
constexpr double kUniformCas = 2073789, kUniformCasLanes = 26378785, kStormLaneFraction = 0.520;
constexpr double kUniformPerEntry = kUniformCas / kEntries, kUniformPerUpdate = kUniformCasLanes / (32 * kEntries);
InstructionProfile uniform_counts() { return hist_counts(kEntries, kUniformCas, kUniformCasLanes); }

// Launch 0 uniform, launch 1 one value: 48x the CAS instructions, 20x the time.
std::vector<KernelProfile> two_launches() {
  return {hist_launch(kUniformCas, 60000, 0), hist_launch(48 * kUniformCas, 1200000, 1)};
}

std::vector<MeasuredInstructions> uniform_run() { return {{uniform_counts(), std::nullopt}}; }

const AtomicSite& cas_site(const std::vector<AtomicSite>& sites) {
  for (const AtomicSite& s : sites)
    if (s.is_cas) return s;
  throw std::runtime_error("no CAS site");
}

TEST(LaunchSites, MeasuredLaunchKeepsItsPerInstructionFigureExactly) {
  std::vector<KernelProfile> launches = two_launches();
  const AttachedInstructions attached = attach_instruction_counts(launches, kSymbol, uniform_run());
  EXPECT_EQ(attached.measured, 1);
  EXPECT_EQ(attached.derived, 1);
  ASSERT_TRUE(launches[0].instructions);
  EXPECT_EQ(launches[0].instructions->basis, InstructionBasis::kMeasured);
  EXPECT_DOUBLE_EQ(launches[0].instructions->threads_per_launch, 264 * 256);
  const ServiceTimeModel model(test::make_h200_like_table());
  const KernelAnalysis a = analyze(launches[0], model);
  EXPECT_EQ(a.sites_basis.basis, InstructionBasis::kMeasured);
  EXPECT_FALSE(a.sites_basis.derived);
  const std::vector<AtomicSite> own_sites = atomic_sites(uniform_counts());
  const AtomicSite& own = cas_site(own_sites);
  const AtomicSite& site = cas_site(a.sites);
  EXPECT_DOUBLE_EQ(*site.attempts_per_update, kUniformPerUpdate);
  EXPECT_DOUBLE_EQ(*site.attempts_per_update, *own.attempts_per_update);
  EXPECT_DOUBLE_EQ(*site.attempts_per_warp_entry, *own.attempts_per_warp_entry);
  EXPECT_DOUBLE_EQ(site.executions_per_launch, own.executions_per_launch);
  EXPECT_FALSE(a.has(FindingKind::kCasRetry));  // 1.7 < 2: too few retries
}

// The one-value launch measured directly would show its own lanes, 0.520 of the entering lanes per
// CAS execution as on the H200, where the derived figure carries the uniform launch's 0.398 over:
// 23.5% low (the lanes per attempt are the one figure contention changes; docs/model.md).
TEST(LaunchSites, DerivedStormGetsItsOwnAttemptsNearADirectMeasurement) {
  std::vector<KernelProfile> launches = two_launches();
  attach_instruction_counts(launches, kSymbol, uniform_run());
  ASSERT_TRUE(launches[1].instructions);
  EXPECT_EQ(launches[1].instructions->basis, InstructionBasis::kDerived);
  const double storm_cas = *launches[1].counter(metric::kSharedAtomInstCas);
  const InstructionProfile direct = hist_counts(kEntries, storm_cas, kStormLaneFraction * 32 * storm_cas);
  const double expected = *cas_site(atomic_sites(direct)).attempts_per_update;  // 0.520 x 189.9 = 98.7
  EXPECT_NEAR(expected, kStormLaneFraction * 48 * kUniformPerEntry, 1e-9);

  const ServiceTimeModel model(test::make_h200_like_table());
  const KernelAnalysis a = analyze(launches[1], model);
  ASSERT_TRUE(a.sites_basis.derived) << a.sites_basis.text;
  const AtomicSite& site = cas_site(a.sites);
  ASSERT_TRUE(site.attempts_per_update);
  EXPECT_NEAR(*site.attempts_per_update, expected, 0.25 * expected);
  EXPECT_GT(*site.attempts_per_update, 20 * kUniformPerUpdate);  // its own figure, not launch 0's
  EXPECT_NEAR(*site.attempts_per_warp_entry, 48 * kUniformPerEntry, 1e-6);
  EXPECT_EQ(a.utilization_class, UtilizationClass::kSevere);
  EXPECT_EQ(a.binding_unit, BindingUnit::kSharedAtomicUnit);
  const Finding* retry = a.find(FindingKind::kCasRetry);
  ASSERT_NE(retry, nullptr);
  EXPECT_NE(retry->title.find("derived from this launch's counters"), std::string::npos) << retry->title;
  const std::string& basis = a.sites_basis.text;
  EXPECT_NE(basis.find("derived from this launch's counters (9.95e+07 shared CAS instructions)"), std::string::npos) << basis;
  EXPECT_NE(basis.find("measured on launch 0"), std::string::npos) << basis;
  EXPECT_NE(basis.find("threads"), std::string::npos) << basis;  // no counter counts its loop entries
  ASSERT_FALSE(retry->details.empty());
  EXPECT_EQ(retry->details.front(), "attempts " + basis);
}

// Half the samples at the uniform launch's contention: its useful updates count its loop entries,
// so it reads the measured figure again, from its own counters.
TEST(LaunchSites, DerivedLaunchTakesItsEntriesFromItsUsefulUpdates) {
  std::vector<KernelProfile> launches = two_launches();
  launches[1] = hist_launch(kUniformCas / 2, 30000, 1);
  launches[1].useful_updates = 16 * kEntries;
  launches[1].launch.grid = {528, 1, 1};  // threads would say twice the entries, not half
  attach_instruction_counts(launches, kSymbol, uniform_run());
  const LaunchSites derived = launch_sites(launches[1]);
  ASSERT_TRUE(derived.basis.derived) << derived.basis.text;
  EXPECT_NEAR(derived.basis.entry_scale, 0.5, 1e-12);
  EXPECT_NE(derived.basis.entries_basis.find("useful updates"), std::string::npos);
  const AtomicSite& site = cas_site(derived.sites);
  EXPECT_NEAR(*site.attempts_per_update, kUniformPerUpdate, 1e-9);
  EXPECT_NEAR(site.executions_per_launch, kUniformCas / 2, 1e-6);
  EXPECT_NEAR(site.loop_entry_executions, kEntries / 2, 1e-6);
}

TEST(LaunchSites, NotDerivedWithoutTheLaunchsOwnCasCount) {
  std::vector<KernelProfile> launches = two_launches();
  attach_instruction_counts(launches, kSymbol, uniform_run());
  launches[1].counters.erase(metric::kSharedAtomInstCas);
  const LaunchSites derived = launch_sites(launches[1]);
  EXPECT_FALSE(derived.basis.derived);
  EXPECT_TRUE(derived.sites.empty());  // never the measured launch's attempts
  EXPECT_NE(derived.basis.text.find("not derived"), std::string::npos) << derived.basis.text;
  EXPECT_NE(derived.basis.text.find("shared CAS instructions"), std::string::npos) << derived.basis.text;
}

TEST(AttachInstructionCounts, TheCountedLaunchOfTheSameRankIsMeasured) {
  std::vector<KernelProfile> launches;
  for (int rank = 0; rank < 2; ++rank)
    for (long long i = 0; i < 3; ++i) {
      launches.push_back(hist_launch(1e6, 60000, i));
      launches.back().process = ProcessTag{100 + rank, rank, "RANK"};
    }
  launches.push_back(hist_launch(1e6, 60000, 0));
  launches.back().symbol = "_Z5otherv";
  InstructionProfile second = uniform_counts();
  second.first_launch = 1;  // e.g. a run that counted the kernel's second launch
  InstructionProfile first_of_rank1 = uniform_counts();
  const AttachedInstructions attached = attach_instruction_counts(
      launches, kSymbol, {{second, ProcessTag{7, 0, "RANK"}}, {first_of_rank1, ProcessTag{8, 1, "RANK"}}});
  EXPECT_EQ(attached.measured, 2);
  EXPECT_EQ(attached.derived, 4);
  const auto basis = [&](size_t i) { return launches[i].instructions->basis; };
  EXPECT_EQ(basis(0), InstructionBasis::kDerived);
  EXPECT_EQ(basis(1), InstructionBasis::kMeasured);  // rank 0, launch 1
  EXPECT_EQ(basis(2), InstructionBasis::kDerived);
  EXPECT_EQ(basis(3), InstructionBasis::kMeasured);  // rank 1, launch 0
  EXPECT_EQ(launches[1].instructions->first_launch, 1);
  EXPECT_EQ(launches[4].instructions->first_launch, 0);  // rank 1's derived launches take rank 1's run
  EXPECT_FALSE(launches[6].instructions);                 // another kernel
}

// Profiles without the collector's index (documents of earlier builds): their place among the
// kernel's profiles of their process.
TEST(AttachInstructionCounts, WithoutTheCollectorsIndexTheOrderOfTheProfilesCounts) {
  std::vector<KernelProfile> launches = two_launches();
  launches.insert(launches.begin(), hist_launch(1e6, 60000, 0));
  launches.front().symbol = "_Z5otherv";
  for (KernelProfile& p : launches) p.symbol_launch.reset();
  EXPECT_EQ(kernel_launch_index(launches, 1), 0);
  EXPECT_EQ(kernel_launch_index(launches, 2), 1);
  attach_instruction_counts(launches, kSymbol, uniform_run());
  EXPECT_EQ(launches[1].instructions->basis, InstructionBasis::kMeasured);
  EXPECT_EQ(launches[2].instructions->basis, InstructionBasis::kDerived);
}

TEST(LaunchSites, BasisRoundTripsAndOlderDocumentsReadAsMeasured) {
  std::vector<KernelProfile> launches = two_launches();
  attach_instruction_counts(launches, kSymbol, uniform_run());
  launches[1].instructions->measured_counters[metric::kL2CasRequests] = 12;
  const KernelProfile back = parse_kernel_profile(serialize_kernel_profile(launches[1]), "mem");
  EXPECT_EQ(back.symbol_launch, 1);
  ASSERT_TRUE(back.instructions);
  EXPECT_EQ(back.instructions->basis, InstructionBasis::kDerived);
  EXPECT_EQ(back.instructions->first_launch, 0);
  EXPECT_DOUBLE_EQ(back.instructions->threads_per_launch, 264 * 256);
  EXPECT_DOUBLE_EQ(back.instructions->measured_counters.at(metric::kL2CasRequests), 12);

  nlohmann::json older = kernel_profile_to_json(launches[1]);
  for (const char* field : {"basis", "first_launch", "threads_per_launch", "measured_counters"})
    older["instructions"].erase(field);
  older["kernel"].erase("symbol_launch");
  const KernelProfile old = kernel_profile_from_json(older, "older");
  EXPECT_FALSE(old.symbol_launch);
  EXPECT_EQ(old.instructions->basis, InstructionBasis::kMeasured);
  EXPECT_EQ(old.instructions->first_launch, 0);

  nlohmann::json bad = kernel_profile_to_json(launches[1]);
  bad["instructions"]["basis"] = "guessed";
  EXPECT_THROW(kernel_profile_from_json(bad, "bad"), ProfileError);

  const ServiceTimeModel model(test::make_h200_like_table());
  const nlohmann::json doc = analysis_json(analyze(launches[1], model));
  ASSERT_TRUE(doc.contains("sites_basis"));
  EXPECT_EQ(doc["sites_basis"]["basis"], "derived");
  EXPECT_EQ(doc["sites_basis"]["launch"], 1);
  EXPECT_EQ(doc["sites_basis"]["measured_first_launch"], 0);
}

}  // namespace
}  // namespace atomq::model
