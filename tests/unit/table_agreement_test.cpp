// Two tables of identical GPUs compared on their saturated cells (table_agreement.hpp).
#include "atomq/calibration/table_agreement.hpp"

#include <gtest/gtest.h>

#include "table_fixture.hpp"

namespace atomq::calibration {
namespace {

TEST(TableAgreement, IdenticalTablesAgreeExactly) {
  const ServiceTable a = test::make_small_table();
  const TableAgreement t = compare_tables(a, a);
  EXPECT_GT(t.cells, 0u);
  EXPECT_EQ(t.max_difference, 0);
  EXPECT_EQ(t.beyond_spread, 0u);
  EXPECT_TRUE(same_gpu_model(a, a));
}

TEST(TableAgreement, ADifferenceBeyondTheRepeatSpreadIsCountedAndNamed) {
  const ServiceTable a = test::make_small_table();
  ServiceTable b = a;
  Cell* changed = nullptr;
  size_t saturated = 0;
  for (auto& c : b.cells) {
    if (c.n < kSaturatedWarps) continue;
    ++saturated;
    c.spread = 0.01;
    if (!changed) changed = &c;
  }
  ASSERT_NE(changed, nullptr);
  changed->s *= 1.10;  // 10% slower: beyond 2 x 1% of spread
  ServiceTable a_spread = a;
  for (auto& c : a_spread.cells) c.spread = 0.01;
  const TableAgreement t = compare_tables(a_spread, b);
  EXPECT_EQ(t.cells, saturated);
  EXPECT_EQ(t.beyond_spread, 1u);
  EXPECT_NEAR(t.max_difference, 0.1 / 1.05, 1e-9);
  EXPECT_NE(t.worst_cell.find("n=" + std::to_string(changed->n)), std::string::npos) << t.worst_cell;
  b.provenance.device.sm_count = 114;
  EXPECT_FALSE(same_gpu_model(a, b));
}

}  // namespace
}  // namespace atomq::calibration
