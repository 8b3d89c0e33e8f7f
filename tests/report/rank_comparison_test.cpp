// Per-rank rows and the load-imbalance finding of a multi-process run (rank_comparison.cpp).
#include <gtest/gtest.h>

#include "atomq/model/metric_names.hpp"
#include "atomq/report/report.hpp"

namespace atomq::report {
namespace {

ReportKernel launch(const std::string& kernel, std::optional<int> rank, double ns, const std::string& run = "job") {
  ReportKernel k;
  k.run_label = run;
  k.profile.kernel_name = kernel;
  if (rank) k.profile.process = model::ProcessTag{100 + *rank, rank, "RANK"};
  k.profile.counters[model::metric::kDurationNs] = ns;
  k.duration_ns = ns;
  return k;
}

TEST(RankComparison, OneRowPerKernelAndRankWithItsMedian) {
  const std::vector<ReportKernel> kernels{launch("void add(int*)", 0, 100), launch("void add(int*)", 1, 400),
                                          launch("void add(int*)", 0, 120), launch("void add(int*)", 1, 380),
                                          launch("void add(int*)", 0, 110), launch("void only0()", 0, 50),
                                          launch("void untagged()", std::nullopt, 70)};
  const auto rows = rank_rows(kernels);
  ASSERT_EQ(rows.size(), 2u);  // only0 ran on one rank, untagged on none
  EXPECT_EQ(rows[0].name, "add");
  EXPECT_EQ(rows[0].rank, 0);
  EXPECT_EQ(rows[0].launches, 3u);
  EXPECT_DOUBLE_EQ(*rows[0].median_ns, 110);
  EXPECT_EQ(rows[1].rank, 1);
  EXPECT_DOUBLE_EQ(*rows[1].median_ns, 390);
  EXPECT_EQ(rows[1].slowest, 1u);
  const auto findings = rank_findings(rows, kernels);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].find("load imbalance across ranks: add takes 3.55x as long on rank 1"), std::string::npos)
      << findings[0];
}

TEST(RankComparison, RanksWithinTheNoiseAreNoFinding) {
  const std::vector<ReportKernel> kernels{launch("k()", 0, 100), launch("k()", 1, 105), launch("k()", 2, 98)};
  EXPECT_EQ(rank_rows(kernels).size(), 3u);
  EXPECT_TRUE(rank_findings(rank_rows(kernels), kernels).empty());
}

TEST(RankComparison, RunsAreKeptApart) {
  const std::vector<ReportKernel> kernels{launch("k()", 0, 100, "a"), launch("k()", 1, 100, "b")};
  EXPECT_TRUE(rank_rows(kernels).empty());  // one rank per run: nothing to compare
}

}  // namespace
}  // namespace atomq::report

namespace atomq::report {
namespace {

// A kernel's launches inside NVTX ranges are grouped by op (the innermost range, without
// PyTorch's ", seq = ..." fields): the same kernel in two ops gives two rows named "OP: kernel".
TEST(KernelSummaries, LaunchesAreGroupedByTheirNvtxOp) {
  EXPECT_EQ(nvtx_op({"step", "aten::histc, seq = 12, op_id = 40"}), "aten::histc");
  EXPECT_EQ(nvtx_op({"my range, with a comma"}), "my range, with a comma");
  EXPECT_EQ(nvtx_op({}), "");
  std::vector<ReportKernel> kernels{launch("void fill(float*)", std::nullopt, 10),
                                    launch("void fill(float*)", std::nullopt, 20),
                                    launch("void fill(float*)", std::nullopt, 30)};
  for (auto& k : kernels) k.label = "job/fill";
  kernels[0].profile.nvtx = {"step", "aten::zeros, seq = 1"};
  kernels[1].profile.nvtx = {"step", "aten::histc, seq = 2"};
  kernels[2].profile.nvtx = {"step", "aten::zeros, seq = 3"};
  const auto summaries = summarize_kernels(kernels);
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(summaries[0].name, "aten::zeros: job/fill");  // 40 ns, the most time
  EXPECT_EQ(summaries[0].op, "aten::zeros");
  EXPECT_EQ(summaries[0].launches.size(), 2u);
  EXPECT_EQ(summaries[1].name, "aten::histc: job/fill");
  for (auto& k : kernels) k.profile.nvtx.clear();
  ASSERT_EQ(summarize_kernels(kernels).size(), 1u);
  EXPECT_EQ(summarize_kernels(kernels)[0].name, "job/fill");
}

}  // namespace
}  // namespace atomq::report
