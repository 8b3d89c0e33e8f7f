// The validation suite's table and its input generators (host code only: no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "atomq/validation/validation.hpp"
#include "inputs.hpp"

namespace atomq::validation {
namespace {

TEST(ValidationCases, EveryVariantComparesWithAVariantOfItsCase) {
  ASSERT_FALSE(cases().empty());
  std::set<std::string> names;
  for (const CaseSpec& c : cases()) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(names.insert(c.name).second) << "case named twice";
    EXPECT_EQ(find_case(c.name), &c);
    int ablations = 0;
    for (const VariantSpec& v : c.variants) {
      if (v.role == VariantRole::kAblation) ++ablations;
      if (v.role == VariantRole::kFix || v.role == VariantRole::kAblation) {
        const VariantSpec* other = c.find(v.compared_with);
        ASSERT_NE(other, nullptr) << v.name << " compares with a missing " << v.compared_with;
        EXPECT_TRUE(other->role == VariantRole::kBaseline || other->role == VariantRole::kSweepPoint) << v.name;
      } else {
        EXPECT_TRUE(v.compared_with.empty()) << v.name;
      }
      if (v.role != VariantRole::kFix) EXPECT_TRUE(v.predicted_by.empty()) << v.name;
    }
    EXPECT_GT(ablations, 0) << "every case has its ground truth";
  }
  EXPECT_EQ(find_case("no such case"), nullptr);
}

TEST(ValidationInputs, SameSeedSameInputOtherSeedOtherInput) {
  EXPECT_EQ(power_law_ids(10000, 1u << 12, 4.0, true, 5), power_law_ids(10000, 1u << 12, 4.0, true, 5));
  EXPECT_NE(power_law_ids(10000, 1u << 12, 4.0, true, 5), power_law_ids(10000, 1u << 12, 4.0, true, 6));
  EXPECT_EQ(clustered_values(1000, 0.5, 0.02, 3), clustered_values(1000, 0.5, 0.02, 3));
}

// Float references: whole units summed in double are exact floats below 2^24 and refused at it.
TEST(ValidationInputs, ExactFloatSumsStopAt2To24) {
  EXPECT_EQ(exact_float_bits({0.0, 3.0, 16777215.0}, "t"),
            (std::vector<std::uint32_t>{0u, float_bits(3.0f), float_bits(16777215.0f)}));
  EXPECT_EQ(float_bits(1.0f), 0x3F800000u);
  EXPECT_THROW(exact_float_bits({16777216.0}, "t"), std::logic_error);
  const std::vector<float> w = whole_units(1000, 4, 7);
  EXPECT_EQ(*std::min_element(w.begin(), w.end()), 1.0f);
  EXPECT_EQ(*std::max_element(w.begin(), w.end()), 4.0f);
}

TEST(ValidationInputs, PowerLawPutsItsShareOnTheFirstId) {
  // floor(V u^4) = 0 when u < V^(-1/4): for V = 4096 that is 1/8 of the draws.
  const auto ids = power_law_ids(200000, 4096, 4.0, false, 11);
  const double share = static_cast<double>(std::count(ids.begin(), ids.end(), 0u)) / ids.size();
  EXPECT_NEAR(share, 0.125, 0.01);
  EXPECT_LT(*std::max_element(ids.begin(), ids.end()), 4096u);
}

TEST(ValidationInputs, HashStreamHoldsEveryDistinctKeyAndNeverTheEmptyMarker) {
  const auto keys = hash_insert_stream(5000, 4.0, 2);
  EXPECT_EQ(keys.size(), 10000u);
  const std::set<std::uint32_t> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), 5000u);
  EXPECT_EQ(distinct.count(0xFFFFFFFFu), 0u);
}

TEST(ValidationInputs, ParticlesStayInTheUnitSquare) {
  for (int clusters : {0, 6}) {
    for (const Position& p : particle_positions(20000, clusters, 0.01, 4)) {
      ASSERT_GE(p.x, 0.0f);
      ASSERT_LT(p.x, 1.0f);
      ASSERT_GE(p.y, 0.0f);
      ASSERT_LT(p.y, 1.0f);
    }
  }
}

// The held-out triangle count's reference against every vertex triple of a small graph.
TEST(ValidationInputs, TriangleCountMatchesEveryTriple) {
  const ForwardGraph g = community_graph(96, 16, 0.5, 40, 7);
  ASSERT_EQ(g.offsets.size(), 97u);
  ASSERT_EQ(g.neighbours.size(), g.edge_u.size());
  std::set<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::size_t e = 0; e < g.edge_u.size(); ++e) {
    ASSERT_LT(g.edge_u[e], g.edge_v[e]);
    edges.insert({g.edge_u[e], g.edge_v[e]});
  }
  EXPECT_EQ(edges.size(), g.edge_u.size()) << "no edge twice";
  for (std::uint32_t u = 0; u < 96; ++u)
    EXPECT_TRUE(std::is_sorted(g.neighbours.begin() + g.offsets[u], g.neighbours.begin() + g.offsets[u + 1]));
  unsigned long long brute = 0;
  for (std::uint32_t a = 0; a < 96; ++a)
    for (std::uint32_t b = a + 1; b < 96; ++b)
      for (std::uint32_t c = b + 1; c < 96; ++c)
        brute += edges.count({a, b}) && edges.count({a, c}) && edges.count({b, c});
  EXPECT_GT(brute, 0u);
  EXPECT_EQ(count_triangles(g), brute);
}

TEST(ValidationInputs, SortedSegmentsRunFromZeroWithoutGaps) {
  const std::vector<std::uint32_t> ids = sorted_segments(100000, 300, 9);
  ASSERT_EQ(ids.size(), 100000u);
  EXPECT_EQ(ids.front(), 0u);
  EXPECT_LE(ids.back(), 299u);
  EXPECT_GE(ids.back(), 290u);  // at most a few repeated cuts among 299
  for (std::size_t i = 1; i < ids.size(); ++i) ASSERT_LE(ids[i] - ids[i - 1], 1u) << i;  // sorted, no gap
}

}  // namespace
}  // namespace atomq::validation
