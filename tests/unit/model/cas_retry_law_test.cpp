// The CAS retry law (model/cas_retry_law.hpp): recovered from sweep points it generated, within
// the median residual docs/model.md states on the committed GH100 table's sweep, and not fitted
// without a sweep.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/cas_retry_law.hpp"

namespace atomq::model {
namespace {

using calibration::CasRetryPoint;
using calibration::L2Cell;
using calibration::L2Section;

constexpr double kClockMhz = 1700, kS = 1.25, kL = 440;

// A section whose one-address CAS cell is S and whose sweep points follow t = max(L, a S) with
// a(m) = m / 2 + 1 (lanes per word m).
L2Section synthetic_section() {
  L2Section s;
  s.l2_clock_mhz = kClockMhz;
  s.warps_per_sm = {64};
  L2Cell cas;
  cas.op = GlobalAtomicOp::kAtomCasU32;
  cas.spread = AddressSpread::kOneAddress;
  cas.warps_per_sm = 64;
  cas.cycles_per_request = kS;
  s.cells.push_back(cas);
  for (int warps : {1, 2, 4, 16, 64, 256, 1024, 4096}) {
    CasRetryPoint p;
    p.warps = warps;
    p.active_lanes = 1;
    p.addresses = 1;
    p.updates_per_lane = 8;
    p.updates = 8.0 * warps;
    const double a = warps / 2.0 + 1.0;
    p.attempts = a * p.updates;
    p.duration_ns = p.updates * std::max(kL, a * kS) * 1e3 / kClockMhz;
    s.cas_retry.push_back(p);
  }
  return s;
}

TEST(CasRetryLaw, RecoversTheLawThatMadeItsPoints) {
  const CasRetryLaw law = fit_cas_retry_law(synthetic_section());
  ASSERT_TRUE(law.fitted) << law.not_fitted_reason;
  EXPECT_DOUBLE_EQ(law.service_cycles, kS);
  EXPECT_NEAR(law.round_trip_cycles, kL, 1e-6);
  EXPECT_NEAR(law.median_abs_residual, 0.0, 1e-9);
  EXPECT_NEAR(law.attempts_per_update(64), 33.0, 1e-9);  // a sweep point
  EXPECT_DOUBLE_EQ(law.attempts_per_update(1), 1.0);
  // Between points: log-log, so between its neighbours.
  EXPECT_GT(law.attempts_per_update(100), 33.0);
  EXPECT_LT(law.attempts_per_update(100), 129.0);
  // Saturated: a S above L.
  EXPECT_NEAR(law.cycles_per_update(4096, law.round_trip_cycles), 2049.0 * kS, 1e-6);
  EXPECT_NEAR(law.cycles_per_update(4, law.round_trip_cycles), kL, 1e-6);
}

// The law read backwards: the lanes per word a measured attempts figure stands for.
TEST(CasRetryLaw, LanesAtAttemptsInvertsTheCurve) {
  const CasRetryLaw law = fit_cas_retry_law(synthetic_section());
  ASSERT_TRUE(law.fitted);
  EXPECT_NEAR(law.lanes_at_attempts(33.0), 64.0, 1e-6);  // a sweep point
  EXPECT_DOUBLE_EQ(law.lanes_at_attempts(1.0), 1.0);
  for (double lanes : {3.0, 100.0, 3000.0})
    EXPECT_NEAR(law.lanes_at_attempts(law.attempts_per_update(lanes)), lanes, 1e-6 * lanes);
}

// Several words per sweep: each word count's series gives a slope; the flattest is kept.
TEST(CasRetryLaw, SeveralWordsSlopeIsTheFlattestSeries) {
  L2Section s = synthetic_section();
  // 16 words: a = lanes^0.5 (lanes 32 -> 512); 256 words: a = lanes^0.8 (lanes 32 -> 128).
  const auto add = [&](int addresses, int warps, double exponent) {
    CasRetryPoint p;
    p.warps = warps;
    p.active_lanes = 32;
    p.addresses = addresses;
    p.updates_per_lane = 4;
    p.updates = 4.0 * 32 * warps;
    const double lanes = std::ceil(static_cast<double>(warps) / addresses) * 32;
    p.attempts = std::pow(lanes, exponent) * p.updates;
    p.duration_ns = 1e6;
    s.cas_retry.push_back(p);
  };
  add(16, 16, 0.5);
  add(16, 256, 0.5);
  add(256, 256, 0.8);
  add(256, 1024, 0.8);
  const CasRetryLaw law = fit_cas_retry_law(s);
  ASSERT_TRUE(law.fitted);
  EXPECT_NEAR(law.several_words_slope, 0.5, 1e-9);
  EXPECT_EQ(fit_cas_retry_law(synthetic_section()).several_words_slope, 0.0);  // one word only
}

TEST(CasRetryLaw, NotFittedWithoutASweep) {
  L2Section s = synthetic_section();
  s.cas_retry.clear();
  const CasRetryLaw law = fit_cas_retry_law(s);
  EXPECT_FALSE(law.fitted);
  EXPECT_NE(law.not_fitted_reason.find("atomq calibrate"), std::string::npos);
}

// docs/model.md, "The CAS retry law": the bundled table's one-word sweep within 10% (median).
TEST(CasRetryLaw, BundledTableOneWordMedianWithinTenPercent) {
  const calibration::ServiceTable t = calibration::load_service_table(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  const CasRetryLaw law = fit_cas_retry_law(t.l2);
  ASSERT_TRUE(law.fitted) << law.not_fitted_reason;
  EXPECT_GE(law.one_word.size(), 20u);
  EXPECT_LE(law.median_abs_residual, 0.10);
}

// docs/model.md, "The CAS retry law": several contended words share the slices as the L2 law
// sweep's hot lines do. With the hottest slice serving its words' attempts together the bundled
// table's 16- and 256-word series fall within 20% (median); each word on a slice of its own, as
// before, read them 60% short.
TEST(CasRetryLaw, BundledTableSeveralWordsShareTheHottestSlice) {
  const calibration::ServiceTable t = calibration::load_service_table(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  const CasRetryLaw law = fit_cas_retry_law(t.l2);
  ASSERT_TRUE(law.fitted) << law.not_fitted_reason;
  ASSERT_GE(law.several_words.size(), 5u);
  for (const CasRetryResidual& r : law.several_words) {
    EXPECT_GT(r.words_at_hottest_slice, 1.0) << r.addresses << " words";
    EXPECT_LT(r.words_at_hottest_slice, r.addresses) << r.addresses << " words";
  }
  EXPECT_LE(law.several_words_median_abs_residual, 0.20);
  for (const CasRetryResidual& r : law.one_word) EXPECT_EQ(r.words_at_hottest_slice, 1.0);
}

}  // namespace
}  // namespace atomq::model
