// The L2 law (model/l2_law.hpp): recovered from cells it generated, fitted on the committed
// calibration within the residual bounds docs/model.md states, and not fitted without law cells.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/l2_law.hpp"

namespace atomq::model {
namespace {

using calibration::L2Cell;
using calibration::L2Section;

double law_value(double a, double b, double lambda, double p, double s, double m) {
  return std::pow(std::pow(std::max(a, b * s), p) + std::pow(lambda / m, p), 1.0 / p);
}

// Law cells of one op over hot lines (one per line, the hottest slice holding `share` of H) and
// packed lines, with S made by the law itself.
L2Section synthetic_section(double a, double b, double lambda, double p) {
  L2Section s;
  s.slices = 96;
  s.warps_per_sm = {64};
  for (int h : {1, 2, 4, 8, 16, 64, 256, 1024, 4096}) {
    for (bool packed : {false, true}) {
      L2Cell c;
      c.op = GlobalAtomicOp::kRedAddF32;
      c.warps_per_sm = 64;
      c.hot_addresses = h;
      c.packed = packed;
      c.addresses = h;
      c.requests_per_instruction = 1;
      const double lines = packed ? std::ceil(h / 32.0) : h;
      c.hottest_slice_share = std::max(1.0 / lines, 2.0 / 96);  // share of the hottest slice
      c.sectors_per_request = packed ? std::min(4.0, std::ceil(h / 8.0)) : 1.0;
      c.hottest_slice_share = std::min(1.0, c.hottest_slice_share);
      const double chains = std::max(1.0, c.hottest_slice_share * lines);
      c.cycles_per_request = law_value(a, b, lambda, p, c.sectors_per_request, chains);
      c.cycles_min = c.cycles_max = c.cycles_per_request;
      c.duration_ns = 1e6;
      c.requests = 1e6;
      c.requests_in_flight = 1;
      s.law_cells.push_back(c);
    }
  }
  return s;
}

TEST(L2Law, RecoversTheTermsOfCellsItMade) {
  const L2Law law = fit_l2_law(synthetic_section(1.2, 1.05, 3.0, 4.0));
  ASSERT_TRUE(law.fitted) << law.not_fitted_reason;
  ASSERT_EQ(law.ops.size(), 1u);
  EXPECT_NEAR(law.ops[0].request_cycles, 1.2, 0.02);
  EXPECT_NEAR(law.ops[0].sector_cycles, 1.05, 0.02);
  EXPECT_NEAR(law.ops[0].chain_cycles, 3.0, 0.03);
  EXPECT_DOUBLE_EQ(law.exponent, 4.0);
  EXPECT_LT(law.max_abs_residual, 1e-3);
}

TEST(L2Law, ChainsGrowAsTheHottestShareFalls) {
  const L2Law law = fit_l2_law(synthetic_section(1.2, 1.05, 3.0, 4.0));
  ASSERT_TRUE(law.fitted);
  EXPECT_DOUBLE_EQ(law.chains_at_share(1.0), 1.0);
  double previous = 1.0;
  for (double share : {0.5, 0.25, 0.1, 0.05, 0.02}) {
    const double m = law.chains_at_share(share);
    EXPECT_GE(m, previous) << share;
    previous = m;
  }
}

// The share curve by line count (docs/model.md, spread_copies): on the committed H200 table more
// hot lines leave the hottest slice a smaller share, not below the even share of the slices the
// sweep saw, and reading it backwards finds the lines again where the curve falls.
TEST(L2Law, ShareCurveByLinesOnTheCommittedCalibration) {
  const calibration::ServiceTable t = calibration::load_service_table(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  const L2Law law = fit_l2_law(t.l2);
  ASSERT_TRUE(law.fitted);
  double previous = 1.0;
  for (double lines : {1.0, 4.0, 32.0, 256.0, 4096.0}) {
    const double share = law.share_at_lines(lines);
    EXPECT_GT(share, 0.0) << lines;
    EXPECT_LE(share, previous + 1e-12) << lines;
    previous = share;
  }
  EXPECT_DOUBLE_EQ(law.share_at_lines(1.0), law.one_line_share);
  EXPECT_GT(law.share_at_lines(256.0), 1.0 / 128);  // 256 lines over the slices stay uneven
  for (double lines : {16.0, 32.0, 64.0}) {  // where neighbouring line counts differ in share
    const double back = law.lines_at_share(law.share_at_lines(lines));
    EXPECT_NEAR(back, lines, 0.01 * lines);
  }
  EXPECT_EQ(fit_l2_law(L2Section{}).share_at_lines(8), 0.0);
}

// Cells with the same inputs that measured apart bound every law of those inputs: the best one
// value splits them evenly; on the committed calibration that bound sets the max residual.
TEST(L2Law, InputBoundSplitsCellsWithTheSameInputs) {
  using G = GlobalAtomicOp;
  const std::vector<L2LawResidual> cells = {{G::kAtomCasU32, "a", 1, 1, 1.0, 0},
                                            {G::kAtomCasU32, "b", 1.001, 1.04, 3.0, 0},
                                            {G::kAtomCasU32, "c", 2, 1, 4.0, 0},
                                            {G::kRedAddU32, "d", 1, 1, 5.0, 0}};
  const L2LawInputBound b = input_bound(cells);
  EXPECT_DOUBLE_EQ(b.max_abs_residual, 0.5);  // 1.5 cycles is 50% off 1 and 3
  EXPECT_DOUBLE_EQ(b.median_abs_residual, 0.5);  // of 0, 0, 0.5, 0.5
  EXPECT_EQ(b.fastest_pattern, "a");
  EXPECT_EQ(b.slowest_pattern, "b");
  EXPECT_EQ(input_bound({}).max_abs_residual, 0.0);

  const calibration::ServiceTable t = calibration::load_service_table(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  const L2Law law = fit_l2_law(t.l2);
  ASSERT_TRUE(law.fitted);
  EXPECT_LE(law.input_bound.max_abs_residual, law.max_abs_residual);  // the fitted law is one such function
}

TEST(L2Law, NotFittedWithoutLawCells) {
  L2Section s;
  const L2Law law = fit_l2_law(s);
  EXPECT_FALSE(law.fitted);
  EXPECT_NE(law.not_fitted_reason.find("calibrate again"), std::string::npos);
  EXPECT_FALSE(law.service_cycles(GlobalAtomicOp::kRedAddU32, 1, 1).has_value());
}

// The committed H200 calibration: the law's residuals over its saturated cells stay at what
// docs/model.md states (median 7.7%, max 47.8% on the table calibrated 2026-12-03 20:02 UTC with
// 21 ops, the vector float adds among them; the goal of 5% / 15% is not met, the doc names the
// effects the law lacks), and the terms keep the physics the cells show: float adds (vector ones too)
// wait about 2-3 cycles between updates of one word, integer ops are not slower on one word
// than the pipeline, and a dependent atomic's round trip does not shrink under load.
TEST(L2Law, FitsTheCommittedCalibration) {
  const calibration::ServiceTable t = calibration::load_service_table(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  const L2Law law = fit_l2_law(t.l2);
  ASSERT_TRUE(law.fitted) << law.not_fitted_reason;
  EXPECT_LE(law.median_abs_residual, 0.085);
  EXPECT_LE(law.max_abs_residual, 0.48);
  EXPECT_EQ(law.ops.size(), t.l2.ops.size());
  for (const L2LawOpTerms& o : law.ops) {
    EXPECT_GT(o.request_cycles, 1.0) << enum_name(o.op);
    EXPECT_LT(o.request_cycles, 1.5) << enum_name(o.op);
    const bool float_add = o.op == GlobalAtomicOp::kRedAddF32 || o.op == GlobalAtomicOp::kAtomAddF32 ||
                           o.op == GlobalAtomicOp::kRedAddF64 ||
                           o.op == GlobalAtomicOp::kAtomAddF64 || o.op == GlobalAtomicOp::kAtomAddF16x2 ||
                           o.op == GlobalAtomicOp::kAtomAddBF16x2 || o.op == GlobalAtomicOp::kRedAddF32x2 ||
                           o.op == GlobalAtomicOp::kRedAddF32x4;
    if (float_add)
      EXPECT_GT(o.chain_cycles, 1.5) << enum_name(o.op);
    else
      EXPECT_LT(o.chain_cycles, 0.5) << enum_name(o.op);
  }
  ASSERT_TRUE(law.latency_alone_ns.has_value());
  EXPECT_GT(*law.latency_alone_ns, 100);
  EXPECT_GE(law.latency_loaded_ns.value_or(0), *law.latency_alone_ns * 0.9);
}

// The round trip against the requests each SM keeps in flight (docs/model.md, "Round trips"):
// flat at light load, then growing in proportion to the load (the SMs' atomic throughput capped):
// at 512 and 2048 in flight per SM the chains take well over twice and eight times the round trip
// alone, whichever lanes x warps hold them.
TEST(L2Law, RoundTripGrowsWithTheRequestsInFlightPastTheKnee) {
  const calibration::ServiceTable t = calibration::load_service_table(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  const L2Law law = fit_l2_law(t.l2);
  ASSERT_TRUE(law.latency_alone_ns.has_value());
  int loaded = 0;
  for (const L2RoundTripPoint& q : law.round_trip) {
    SCOPED_TRACE(fmt::format("{} {} x {}", enum_name(q.op), q.lanes, q.warps_per_sm));
    if (q.in_flight_per_sm <= 64) EXPECT_LT(q.latency_ns, *law.latency_alone_ns * 1.25);
    if (q.in_flight_per_sm >= 512) {
      EXPECT_GT(q.latency_ns, *law.latency_alone_ns * 2.5 * q.in_flight_per_sm / 512);
      ++loaded;
    }
  }
  EXPECT_GE(loaded, 4) << "chains at 512 or more requests in flight per SM";
}

}  // namespace
}  // namespace atomq::model
