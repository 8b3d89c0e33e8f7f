#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "atomq/model/analysis.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "model_fixture.hpp"

namespace atomq::model {
namespace {

class BadInput : public ::testing::Test {
 protected:
  ServiceTimeModel model{test::make_h200_like_table()};
  KernelProfile good = test::make_profile(test::ProfileSpec{});

  // Analyze, expect "insufficient data", and return the joined details.
  std::string problems_of(const KernelProfile& p) const {
    KernelAnalysis a;
    EXPECT_NO_THROW(a = analyze(p, model));
    EXPECT_FALSE(a.evaluated);
    EXPECT_EQ(a.utilization_class, UtilizationClass::kInsufficientData);
    const Finding* f = a.find(FindingKind::kInsufficientData);
    if (!f) {
      ADD_FAILURE() << "no insufficient-data finding";
      return "";
    }
    EXPECT_FALSE(f->recommendation.empty());
    std::string joined;
    for (const std::string& d : f->details) joined += d + "\n";
    return joined;
  }
};

TEST_F(BadInput, TheGoodProfileIsEvaluated) {
  const KernelAnalysis a = analyze(good, model);
  EXPECT_TRUE(a.evaluated);
  EXPECT_FALSE(a.has(FindingKind::kInsufficientData));
}

TEST_F(BadInput, MissingCounterIsNamed) {
  for (const char* name : {metric::kSharedAtomInst, metric::kSharedAtomWavefronts,
                           metric::kAchievedOccupancyPct}) {
    KernelProfile p = good;
    p.counters.erase(name);
    const std::string details = problems_of(p);
    EXPECT_NE(details.find(name), std::string::npos) << details;
    EXPECT_NE(details.find("missing"), std::string::npos) << details;
  }
  KernelProfile no_cycles = good;
  no_cycles.counters.erase(metric::kCyclesActiveSum);
  no_cycles.counters.erase(metric::kCyclesActiveAvg);
  EXPECT_NE(problems_of(no_cycles).find(metric::kCyclesActiveSum), std::string::npos);
  KernelProfile no_split = good;
  no_split.counters.erase(metric::kSharedAtomInstAlu);
  no_split.counters.erase(metric::kSharedAtomInstCas);
  EXPECT_NE(problems_of(no_split).find("CAS share"), std::string::npos);
}

TEST_F(BadInput, OneMissingKindIsDerivedFromTheTotal) {
  KernelProfile p = good;
  p.counters[metric::kSharedAtomInstCas] = p.counters[metric::kSharedAtomInst] * 0.25;
  p.counters[metric::kSharedAtomInstAlu] = p.counters[metric::kSharedAtomInst] * 0.75;
  p.counters.erase(metric::kSharedAtomInstAlu);
  const KernelAnalysis a = analyze(p, model);
  ASSERT_TRUE(a.evaluated);
  EXPECT_NEAR(a.inputs.cas_share, 0.25, 1e-12);
}

TEST_F(BadInput, ZeroNanNegativeAndInfiniteValues) {
  // No shared atomics at all is a valid answer, not missing data: U = 0, not atomic-bound.
  KernelProfile zero = good;
  zero.counters[metric::kSharedAtomInst] = 0;
  const KernelAnalysis idle = analyze(zero, model);
  EXPECT_TRUE(idle.evaluated);
  EXPECT_EQ(idle.utilization_class, UtilizationClass::kNotAtomicBound);
  EXPECT_EQ(idle.utilization.mean, 0.0);
  EXPECT_FALSE(idle.l2.evaluated);
  // ... and a kernel whose atomics are all global ones, recorded with the request total only
  // (no hottest slice, no elapsed L2 cycles), is still evaluated: the L2 queue is left out.
  KernelProfile global_only = zero;
  global_only.counters[metric::kL2RedRequests] = 0.5 * global_only.counters[metric::kCyclesActiveSum];
  const KernelAnalysis global = analyze(global_only, model);
  EXPECT_TRUE(global.evaluated);
  EXPECT_FALSE(global.l2.evaluated);
  EXPECT_FALSE(global.l2.not_evaluated_reason.empty());

  KernelProfile zero_cycles = good;
  zero_cycles.counters[metric::kCyclesActiveSum] = 0;
  zero_cycles.counters[metric::kCyclesActiveAvg] = 0;
  EXPECT_NE(problems_of(zero_cycles).find(metric::kCyclesActiveSum), std::string::npos);

  KernelProfile nan = good;
  nan.counters[metric::kSharedAtomWavefronts] = std::nan("");
  EXPECT_NE(problems_of(nan).find(std::string(metric::kSharedAtomWavefronts) + ": not a finite"),
            std::string::npos);

  KernelProfile inf = good;
  inf.counters[metric::kCyclesActiveSum] = std::numeric_limits<double>::infinity();
  inf.counters.erase(metric::kCyclesActiveAvg);
  EXPECT_NE(problems_of(inf).find(metric::kCyclesActiveSum), std::string::npos);

  KernelProfile negative = good;
  negative.counters[metric::kSharedAtomInstCas] = -3;
  negative.counters[metric::kSharedAtomInstAlu] = -4;
  const std::string details = problems_of(negative);
  EXPECT_NE(details.find(std::string(metric::kSharedAtomInstCas) + ": negative (-3)"),
            std::string::npos)
      << details;

  KernelProfile occupancy = good;
  occupancy.counters[metric::kAchievedOccupancyPct] = 0;
  EXPECT_NE(problems_of(occupancy).find("out of range"), std::string::npos);
}

TEST_F(BadInput, InconsistentCountersAreNamed) {
  KernelProfile sum = good;
  sum.counters[metric::kSharedAtomInstAlu] = 0.5 * sum.counters[metric::kSharedAtomInst];
  sum.counters[metric::kSharedAtomInstCas] = 0.1 * sum.counters[metric::kSharedAtomInst];
  const std::string details = problems_of(sum);
  EXPECT_NE(details.find("inconsistent"), std::string::npos) << details;
  EXPECT_NE(details.find(metric::kSharedAtomInstAlu), std::string::npos) << details;

  KernelProfile few_wavefronts = good;
  few_wavefronts.counters[metric::kSharedAtomWavefronts] =
      0.5 * few_wavefronts.counters[metric::kSharedAtomInst];
  EXPECT_NE(problems_of(few_wavefronts).find("at least one"), std::string::npos);

  KernelProfile lanes = good;
  lanes.counters[metric::kSharedAtomThreadOps] = 40 * lanes.counters[metric::kSharedAtomInst];
  EXPECT_NE(problems_of(lanes).find("expected 1..32"), std::string::npos);

  KernelProfile busiest = good;
  busiest.counters[metric::kSharedAtomWavefrontsMax] =
      2 * busiest.counters[metric::kSharedAtomWavefronts];
  EXPECT_NE(problems_of(busiest).find(metric::kSharedAtomWavefrontsMax), std::string::npos);
}

TEST_F(BadInput, MissingDeviceFactsFallBackToTheTableOrAreNamed) {
  KernelProfile p = good;
  p.device.max_warps_per_sm = 0;
  EXPECT_TRUE(analyze(p, model).evaluated);  // the table knows: 64

  calibration::ServiceTable bare = test::make_h200_like_table();
  bare.provenance.device.max_warps_per_sm = 0;
  const ServiceTimeModel without(bare);
  const KernelAnalysis a = analyze(p, without);
  EXPECT_FALSE(a.evaluated);
  ASSERT_TRUE(a.has(FindingKind::kInsufficientData));
  EXPECT_EQ(a.find(FindingKind::kInsufficientData)->details.at(0),
            "device.max_warps_per_sm: missing");
}

TEST_F(BadInput, EmptyTableGivesInsufficientDataNotACrash) {
  calibration::ServiceTable empty = test::make_h200_like_table();
  empty.cells.clear();
  const ServiceTimeModel none(empty);
  KernelAnalysis a;
  EXPECT_NO_THROW(a = analyze(good, none));
  EXPECT_EQ(a.utilization_class, UtilizationClass::kInsufficientData);

  const ServiceTimeModel no_axes{calibration::ServiceTable{}};
  EXPECT_NO_THROW(a = analyze(good, no_axes));
  EXPECT_EQ(a.utilization_class, UtilizationClass::kInsufficientData);
}

TEST_F(BadInput, TableForAnotherChipIsSaid) {
  KernelProfile p = good;
  p.device.chip = "AD102";
  const KernelAnalysis a = analyze(p, model);
  EXPECT_TRUE(a.evaluated);
  EXPECT_TRUE(a.has(FindingKind::kTableMismatch));
}

}  // namespace
}  // namespace atomq::model

namespace atomq::model {
namespace {

TEST(ServiceTimeWithoutGrid, IsNotANumberRatherThanACrash) {
  const ServiceTimeModel none{calibration::ServiceTable{}};
  EXPECT_TRUE(std::isnan(none.on_pattern(8, 32, 0, calibration::OpVariant::kAdd, {1}).cycles));
  EXPECT_TRUE(std::isnan(none.at(8, 32, 0, 1, calibration::OpVariant::kAdd).cycles));
}

// Raw library messages: a number beyond double and a name that is not UTF-8 used to surface as
// "[json.exception....]" with neither file nor field.
TEST(RawLibraryMessages, NumberOverflowNamesTheFileAndInvalidUtf8IsWrittenReplaced) {
  try {
    parse_kernel_profile(R"({"format": "atomq.kernel_profile", "version": 1e999})", "p.json");
    ADD_FAILURE() << "1e999 accepted";
  } catch (const ProfileError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("p.json: not valid JSON: ", 0), 0u) << what;
    EXPECT_EQ(what.find("[json.exception"), std::string::npos) << what;
  }
  KernelProfile p = test::make_profile(test::ProfileSpec{});
  p.kernel_name = "kernel\xff\xfe";
  std::string text;
  ASSERT_NO_THROW(text = serialize_kernel_profile(p));
  EXPECT_EQ(parse_kernel_profile(text, "p.json").kernel_name, "kernel\xEF\xBF\xBD\xEF\xBF\xBD");  // U+FFFD twice
}

}  // namespace
}  // namespace atomq::model
