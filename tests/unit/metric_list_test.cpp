#include "atomq/analyzer/metric_list.hpp"

#include <gtest/gtest.h>

#include <set>

#include "atomq/analyzer/metric_config.hpp"
#include "atomq/model/metric_names.hpp"

namespace an = atomq::analyzer;

TEST(MetricList, NamesAreUniqueAndCoverTheModelInputs) {
  const auto names = an::atomq_metric_names();
  const std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  for (const char* needed : {atomq::model::metric::kSharedAtomInst, atomq::model::metric::kSharedAtomInstCas,
                             atomq::model::metric::kSharedAtomWavefronts, atomq::model::metric::kCyclesActiveSum})
    EXPECT_TRUE(unique.count(needed)) << needed;
  EXPECT_EQ(an::ncu_metrics_argument().find(' '), std::string::npos);
}

// Host-only CUPTI calls need no GPU: the list is checked against the GH100 metric tables.
TEST(MetricList, EveryMetricExistsOnGH100AndFitsFewPasses) {
  const auto checks = an::validate_metrics("GH100", an::atomq_metric_names());
  for (const auto& c : checks) EXPECT_TRUE(c.valid) << c.name;
  const an::MetricConfig config("GH100", an::atomq_metric_names());
  EXPECT_GE(config.passes(), 1u);
  EXPECT_LE(config.passes(), 4u);
  // The request port's counters are in the default list, at no pass of their own.
  const auto names = an::atomq_metric_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "l1tex__m_l1tex2xbar_req_cycles_stalled.sum"), names.end());
  // The counters on request: the L1's global-load sectors take a pass of their own.
  const auto with_sectors = an::collector_metric_names(true);
  for (const auto& c : an::validate_metrics("GH100", with_sectors)) EXPECT_TRUE(c.valid) << c.name;
  const an::MetricConfig sectors("GH100", with_sectors);
  EXPECT_EQ(with_sectors.size(), an::atomq_metric_names().size() + an::sector_metrics().size());
  EXPECT_EQ(sectors.passes(), config.passes() + 1);
  EXPECT_NE(an::ncu_metrics_argument(true).find("smsp__sass_sectors_mem_global.sum"), std::string::npos);
  EXPECT_EQ(an::ncu_metrics_argument().find("smsp__sass_sectors_mem_global.sum"), std::string::npos);
  EXPECT_FALSE(config.config_image().empty());
}

TEST(MetricList, UnknownMetricIsRejectedByName) {
  auto checks = an::validate_metrics("GH100", {"smsp__sass_thread_inst_executed_op_shared_atom.sum"});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].valid);
  try {
    an::MetricConfig config("GH100", {"not_a_metric.sum"});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not_a_metric.sum"), std::string::npos);
  }
}
