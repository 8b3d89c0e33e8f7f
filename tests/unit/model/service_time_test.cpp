#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "atomq/model/analysis_json.hpp"
#include "atomq/model/service_time.hpp"
#include "model_fixture.hpp"

namespace atomq::model {
namespace {

using calibration::OpVariant;
using calibration::Pattern;

class ServiceTime : public ::testing::Test {
 protected:
  ServiceTimeModel model{test::make_h200_like_table()};
};

TEST(Wavefronts, MatchTheCountersSeenOnTheH200) {
  // Measured on the H200 (docs/calibration.md): 1 for distinct or merged, 32 for a 32-way conflict or a same-address
  // ADD, 2 for CAS on distinct addresses, 64 for CAS on one address.
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{1}, 32, 0, OpVariant::kAdd), 1);
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{0}, 32, 0, OpVariant::kPopcInc), 1);
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{0}, 32, 0, OpVariant::kAdd), 32);
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{32}, 32, 0, OpVariant::kPopcInc), 32);
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{1}, 32, 1, OpVariant::kAdd), 2);
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{0}, 32, 1, OpVariant::kPopcInc), 64);
  // Fewer lanes, fewer lanes per bank: 8 lanes of a 32-way pattern conflict 8-way.
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{32}, 8, 0, OpVariant::kAdd), 8);
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{2}, 24, 0, OpVariant::kAdd), 2);
  EXPECT_DOUBLE_EQ(expected_wavefronts(Pattern{4}, 4, 0, OpVariant::kAdd), 1);
}

TEST_F(ServiceTime, ExactOnEveryGridPoint) {
  for (const calibration::Cell& c : model.table().cells) {
    const ServiceTimeEstimate s = model.on_pattern(c.n, c.e, c.c, c.variant, c.pattern);
    ASSERT_NEAR(s.cycles, c.s, 1e-9 * c.s) << "n " << c.n << " e " << c.e << " c " << c.c;
    ASSERT_TRUE(s.in_range());
  }
}

TEST_F(ServiceTime, ExactAtTheWavefrontsOfEachPattern) {
  for (const Pattern& p : model.table().axes.patterns)
    for (double c : {0.0, 0.5, 1.0})
      for (int n : {1, 8, 64}) {
        const double k = expected_wavefronts(p, 32, c, OpVariant::kAdd);
        const ServiceTimeEstimate s = model.at(n, 32, c, k, OpVariant::kAdd);
        EXPECT_NEAR(s.cycles, test::oracle_s(n, 32, c, OpVariant::kAdd, p), 1e-9)
            << calibration::to_string(p) << " c " << c << " n " << n;
        EXPECT_TRUE(s.in_range());
      }
}

// Between two grid points the value moves monotonically from one to the other.
template <typename F>
void expect_monotone_between(F s_at, double x0, double x1, const char* axis) {
  const double s0 = s_at(x0), s1 = s_at(x1);
  const bool rising = s1 >= s0;
  double previous = s0;
  for (int i = 1; i <= 20; ++i) {
    const double x = x0 + (x1 - x0) * i / 20.0;
    const double s = s_at(x);
    EXPECT_GE(s, std::min(s0, s1) - 1e-9) << axis << " " << x;
    EXPECT_LE(s, std::max(s0, s1) + 1e-9) << axis << " " << x;
    if (rising)
      EXPECT_GE(s, previous - 1e-9) << axis << " " << x;
    else
      EXPECT_LE(s, previous + 1e-9) << axis << " " << x;
    previous = s;
  }
}

TEST_F(ServiceTime, MonotoneBetweenGridPoints) {
  const Pattern conflict8{8};
  expect_monotone_between(
      [&](double n) { return model.on_pattern(n, 32, 0, OpVariant::kAdd, conflict8).cycles; }, 1,
      2, "n");
  expect_monotone_between(
      [&](double n) { return model.on_pattern(n, 32, 0.5, OpVariant::kAdd, Pattern{1}).cycles; },
      2, 4, "n");
  expect_monotone_between(
      [&](double e) { return model.on_pattern(64, e, 0, OpVariant::kAdd, Pattern{0}).cycles; }, 8,
      16, "e");
  expect_monotone_between(
      [&](double c) { return model.on_pattern(64, 32, c, OpVariant::kAdd, conflict8).cycles; }, 0,
      0.5, "c");
  expect_monotone_between([&](double k) { return model.at(64, 32, 0, k, OpVariant::kAdd).cycles; },
                          8, 16, "k");
  // Interpolation in log n follows S ~ L / n exactly below saturation.
  EXPECT_NEAR(model.on_pattern(1.5, 32, 0, OpVariant::kAdd, Pattern{32}).cycles,
              test::oracle_latency(32, OpVariant::kAdd) / 1.5, 1e-6);
  // ...and S ~ k at saturation: k = 24 between the 16- and 32-way patterns.
  EXPECT_NEAR(model.at(64, 32, 0, 24, OpVariant::kAdd).cycles, 24.02, 1e-6);
}

TEST_F(ServiceTime, OutOfRangeIsClampedAndFlagged) {
  const ServiceTimeEstimate inside = model.at(16, 32, 0, 4, OpVariant::kAdd);
  EXPECT_TRUE(inside.in_range());

  const ServiceTimeEstimate many_warps = model.at(128, 32, 0, 4, OpVariant::kAdd);
  ASSERT_EQ(many_warps.clamped.size(), 1u);
  EXPECT_EQ(many_warps.clamped[0].axis, "n");
  EXPECT_DOUBLE_EQ(many_warps.clamped[0].requested, 128);
  EXPECT_DOUBLE_EQ(many_warps.clamped[0].used, 64);
  EXPECT_NEAR(many_warps.cycles, model.at(64, 32, 0, 4, OpVariant::kAdd).cycles, 1e-12);

  const ServiceTimeEstimate bad_c = model.on_pattern(16, 0.5, 1.5, OpVariant::kAdd, Pattern{1});
  ASSERT_EQ(bad_c.clamped.size(), 2u);
  EXPECT_EQ(bad_c.clamped[0].axis, "e");
  EXPECT_EQ(bad_c.clamped[1].axis, "c");

  const ServiceTimeEstimate nan_n = model.at(std::nan(""), 32, 0, 1, OpVariant::kAdd);
  EXPECT_FALSE(nan_n.in_range());
  EXPECT_TRUE(std::isfinite(nan_n.cycles));

  // Beyond the most serialized pattern (64 wavefronts): flagged, carried on by the fit.
  const ServiceTimeEstimate beyond = model.at(64, 32, 1, 128, OpVariant::kAdd);
  ASSERT_FALSE(beyond.in_range());
  EXPECT_EQ(beyond.clamped.back().axis, "k");
  EXPECT_TRUE(beyond.extrapolated_by_fit);
  EXPECT_GT(beyond.cycles, 1.8 * model.at(64, 32, 1, 64, OpVariant::kAdd).cycles);
}

TEST_F(ServiceTime, UnloadedLatencyComesFromTheChainsMixedByCas) {
  using calibration::LatencyOp;
  // ADD on a 4-way conflict: 4 serialized lanes.
  EXPECT_NEAR(model.unloaded_latency(32, 0, 4, OpVariant::kAdd).cycles,
              test::oracle_chain_latency(LatencyOp::kAdd, 4), 1e-9);
  // Half CAS on distinct words: k = 1.5, one serialized lane.
  EXPECT_NEAR(model.unloaded_latency(32, 0.5, 1.5, OpVariant::kAdd).cycles,
              0.5 * test::oracle_chain_latency(LatencyOp::kAdd, 1) +
                  0.5 * test::oracle_chain_latency(LatencyOp::kCas, 1),
              1e-9);
  // Between chains: linear in the serialized lanes (24 between 16 and 32).
  EXPECT_NEAR(model.unloaded_latency(32, 0, 24, OpVariant::kAdd).cycles,
              test::oracle_chain_latency(LatencyOp::kAdd, 24), 1e-9);
  const ServiceTimeEstimate beyond = model.unloaded_latency(32, 0, 100, OpVariant::kAdd);
  ASSERT_FALSE(beyond.in_range());
  EXPECT_EQ(beyond.clamped[0].axis, "k");

  calibration::ServiceTable old = test::make_h200_like_table();
  old.latencies.clear();
  const ServiceTimeModel without(old);
  const ServiceTimeEstimate fallback = without.unloaded_latency(32, 0, 1, OpVariant::kAdd);
  EXPECT_NEAR(fallback.cycles, test::oracle_latency(1, OpVariant::kAdd), 1e-9);
  EXPECT_NE(fallback.method.find("no latency chains"), std::string::npos);
}

TEST_F(ServiceTime, FitRecoversTheGeneratingModel) {
  const VariantFit* add = model.fit().for_variant(OpVariant::kAdd);
  ASSERT_NE(add, nullptr);
  EXPECT_NEAR(add->saturation.slope, 1.0, 0.02);   // one cycle per wavefront
  EXPECT_NEAR(add->latency.slope, 2.0, 0.05);
  EXPECT_NEAR(add->latency_floor, 5.5, 1e-9);
  EXPECT_LT(add->max_abs_relative_residual, 0.05);
}

TEST(ServiceFitResiduals, ReportNoiseInTheTable) {
  calibration::ServiceTable t = test::make_h200_like_table();
  // One cell measured 50% high: the fit smooths it and its residual shows it.
  std::size_t spiked = 0;
  for (std::size_t i = 0; i < t.cells.size(); ++i)
    if (t.cells[i].n == 64 && t.cells[i].e == 32 && t.cells[i].c == 0 &&
        t.cells[i].pattern.conflict_degree == 8 && t.cells[i].variant == OpVariant::kAdd)
      spiked = i;
  t.cells[spiked].s *= 1.5;
  const ServiceFit fit = fit_service_model(t);
  EXPECT_LT(fit.relative_residual[spiked], -0.25);
  const std::string csv = fit_residuals_csv(t, fit);
  EXPECT_NE(csv.find("variant,pattern,n,e,c,k,s_measured,s_fit,relative_residual"), std::string::npos);
  EXPECT_NE(csv.find("add,conflict8,64,32,0,8,"), std::string::npos);
}

// The calibrated H200 table, when present: the pattern -> wavefront mapping and the fit must
// describe the measured grid (S ~ k cycles at saturation).
TEST(CalibratedTable, SaturatedServiceTimeIsWavefrontsTimesOneCycle) {
  std::string path;
  if (const char* env = std::getenv("ATOMQ_MODEL_TEST_TABLE")) path = env;
  if (path.empty())
    if (auto p = bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100")) path = *p;
  ASSERT_FALSE(path.empty()) << "the bundled calibration/tables/GH100.json is part of the tree";
  const ServiceTimeModel model(calibration::load_service_table(path));
  const auto& axes = model.table().axes;
  const int n_max = *std::max_element(axes.n.begin(), axes.n.end());
  for (const calibration::Cell& c : model.table().cells) {
    if (c.n != n_max) continue;
    const double k = expected_wavefronts(c.pattern, c.e, c.c, c.variant);
    EXPECT_NEAR(c.s / k, 1.0, 0.1) << atomq::enum_name(c.variant) << " "
                                   << calibration::to_string(c.pattern) << " e " << c.e << " c "
                                   << c.c;
  }
  for (const VariantFit& f : model.fit().variants) {
    EXPECT_NEAR(f.saturation.slope, 1.0, 0.1);
    EXPECT_LT(f.rms_relative_residual, 0.15) << atomq::enum_name(f.variant);
  }
}

}  // namespace
}  // namespace atomq::model
