// The report reads the analyses a run document stores where this build wrote them with the
// same table, and evaluates the profiles again otherwise, saying which and why
// (run::stored_analyses_unusable). Either way every rendering is the same.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "atomq/model/analysis_json.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/model/table_selection.hpp"
#include "atomq/report/recorded.hpp"
#include "atomq/report/report.hpp"

namespace atomq::report {
namespace {

// The recorded runs as `atomq analyze` of build (1.0, abc123) with the bundled table writes them.
ReportRequest stored_request() {
  ReportRequest request;
  const auto table = model::bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100");
  EXPECT_TRUE(table.has_value());
  request.table = calibration::load_service_table(*table);
  request.table_path = *table;
  request.table_origin = "bundled";
  const model::ServiceTimeModel service(request.table);
  for (const auto& path : load_recorded_set(ATOMQ_RECORDED_RUNS_DIR).run_paths) {
    RunDocument run = load_run_document(path);
    run.info.atomq_version = "1.0";
    run.info.atomq_commit = "abc123";
    run.info.table_digest = calibration::service_table_digest(request.table);
    for (std::size_t i = 0; i < run.profiles.size(); ++i)
      run.stored_analyses.at(i) = model::analysis_json(model::analyze(run.profiles[i], service));
    request.runs.push_back(std::move(run));
  }
  request.build_version = "1.0";
  request.build_commit = "abc123";
  return request;
}

// A rendering without the lines that say how the analyses came (the runs' lines).
std::string without_basis(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line))
    if (line.find("analyses") == std::string::npos) out += line + "\n";
  return out;
}

TEST(StoredAnalyses, ReadWhereThisBuildWroteThemWithTheSameTable) {
  ReportRequest request = stored_request();
  // A mark only the stored analysis carries: shown, so it was read, not evaluated again.
  nlohmann::json& first = request.runs.front().stored_analyses.front();
  first["findings"][0]["title"] = "STORED-ANALYSIS-MARK";
  const Report report = build_report(request);
  for (const ReportKernel& k : report.kernels) EXPECT_TRUE(k.analysis_stored) << k.label;
  EXPECT_NE(render_markdown(report).find("STORED-ANALYSIS-MARK"), std::string::npos);
  for (const std::string& line : report.runs)
    EXPECT_NE(line.find("analyses as stored by atomq analyze"), std::string::npos) << line;
}

TEST(StoredAnalyses, EveryRenderingIsTheSameAsEvaluatingAgain) {
  const Report stored = build_report(stored_request());
  ReportRequest request = stored_request();
  request.build_commit = "def456";
  const Report again = build_report(request);
  for (const ReportKernel& k : again.kernels) EXPECT_FALSE(k.analysis_stored) << k.label;
  ASSERT_EQ(stored.kernels.size(), again.kernels.size());
  EXPECT_EQ(without_basis(render_markdown(stored)), without_basis(render_markdown(again)));
  EXPECT_EQ(render_terminal_summary(stored), render_terminal_summary(again));
  EXPECT_EQ(render_summary_csv(stored), render_summary_csv(again));
  EXPECT_EQ(render_summary_json(stored), render_summary_json(again));
  for (const std::string& line : again.runs)
    EXPECT_NE(line.find("analyses evaluated again by this build: written by atomq 1.0 abc123, this is 1.0 def456"),
              std::string::npos)
        << line;
}

TEST(StoredAnalyses, EvaluatedAgainForAnotherTableOrAModifiedTreeSayingWhy) {
  ReportRequest request = stored_request();
  request.runs.front().info.table_digest = "0123456789abcdef";
  request.runs.front().info.table_path = "/elsewhere/GH100.json";
  Report r = build_report(request);
  EXPECT_NE(r.runs.front().find("its analyses used another table (GH100.json, digest 0123456789abcdef)"), std::string::npos)
      << r.runs.front();
  EXPECT_EQ(r.runs.front().find("/elsewhere"), std::string::npos) << "a report names no path of the machine";

  request = stored_request();
  for (RunDocument& run : request.runs) run.info.atomq_commit = "abc123-dirty";
  request.build_commit = "abc123-dirty";
  r = build_report(request);
  for (const ReportKernel& k : r.kernels) EXPECT_FALSE(k.analysis_stored) << k.label;
  EXPECT_NE(r.runs.front().find("a build of a modified tree"), std::string::npos) << r.runs.front();

  request = stored_request();
  request.runs.front().stored_analyses.front()["utilization"]["mean"] = "high";
  try {
    (void)build_report(request);
    FAIL() << "a damaged stored analysis is shown";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("kernels[0].analysis: field 'utilization.mean'"), std::string::npos)
        << e.what();
  }
}

// Kernels of another board than the request's table are evaluated with their board's table
// (board_tables, as select_report_table fills it), their analyses stored with it stand, and the
// report names the table they used; the other kernels keep the request's table.
TEST(StoredAnalyses, KernelsOfAnotherBoardUseThatBoardsTable) {
  ReportRequest request = stored_request();  // stored with the bundled GH100 (H200) table
  const std::string gpu = request.runs.front().profiles.front().device.name;
  const auto first_board = model::bundled_gpu_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100", gpu);
  ASSERT_TRUE(first_board.has_value()) << gpu;
  // The request's table is the first runs' board's; the last run moves to an H200, whose table
  // is the one its analyses were stored with.
  ReportRequest::BoardTable h200{request.table, request.table_path, "bundled"};
  request.table = calibration::load_service_table(*first_board);
  request.table_path = *first_board;
  ASSERT_GE(request.runs.size(), 2u);
  for (model::KernelProfile& p : request.runs.back().profiles) p.device.name = "NVIDIA H200";
  request.board_tables.emplace("NVIDIA H200", h200);
  const model::ServiceTimeModel first_service(request.table);
  const Report r = build_report(request);
  int on_h200 = 0;
  for (const ReportKernel& k : r.kernels) {
    if (k.profile.device.name == "NVIDIA H200") {
      ++on_h200;
      EXPECT_TRUE(k.analysis_stored) << k.label;  // stored with the H200's table: read
    } else {
      EXPECT_FALSE(k.analysis_stored) << k.label;  // stored with another table than this board's
      EXPECT_EQ(model::analysis_json(k.analysis), model::analysis_json(model::analyze(k.profile, first_service)))
          << k.label;
    }
  }
  ASSERT_GT(on_h200, 0);
  const std::string note = fmt::format("{} kernel(s) of the NVIDIA H200 evaluated with the table chosen for that "
                                       "board, GH100.json", on_h200);
  EXPECT_NE(std::find(r.notes.begin(), r.notes.end(), note), r.notes.end()) << fmt::format("{}", fmt::join(r.notes, "\n"));
}

}  // namespace
}  // namespace atomq::report
