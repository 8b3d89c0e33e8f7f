// The report reads the analyses a run document stores where this build wrote them with the
// same table, and evaluates the profiles again otherwise, saying which and why
// (run::stored_analyses_unusable). Either way every rendering is the same.
#include <gtest/gtest.h>

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
  EXPECT_NE(r.runs.front().find("its analyses used another table (/elsewhere/GH100.json)"), std::string::npos)
      << r.runs.front();

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

// A run of another board than the request's table is evaluated with its board's table
// (board_tables, as select_report_table fills it), and its analyses stored with that table stand.
TEST(StoredAnalyses, RunsOfAnotherBoardUseThatBoardsTable) {
  ReportRequest request = stored_request();
  const std::string gpu = request.runs.front().profiles.front().device.name;
  const auto board_path = model::bundled_gpu_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100", gpu);
  ASSERT_TRUE(board_path.has_value()) << gpu;
  const calibration::ServiceTable board = calibration::load_service_table(*board_path);
  ASSERT_NE(calibration::service_table_digest(board), calibration::service_table_digest(request.table));
  request.board_tables.emplace(gpu, board);
  const model::ServiceTimeModel board_service(board);
  Report r = build_report(request);
  ASSERT_FALSE(r.kernels.empty());
  for (const ReportKernel& k : r.kernels) {
    ASSERT_EQ(k.profile.device.name, gpu);
    EXPECT_FALSE(k.analysis_stored) << k.label;  // stored with the request's table, not the board's
    EXPECT_EQ(model::analysis_json(k.analysis), model::analysis_json(model::analyze(k.profile, board_service)))
        << k.label;
  }
  // Stored with the board's table: read as stored.
  for (RunDocument& run : request.runs) {
    run.info.table_digest = calibration::service_table_digest(board);
    for (std::size_t i = 0; i < run.profiles.size(); ++i)
      run.stored_analyses.at(i) = model::analysis_json(model::analyze(run.profiles[i], board_service));
  }
  r = build_report(request);
  for (const ReportKernel& k : r.kernels) EXPECT_TRUE(k.analysis_stored) << k.label;
}

}  // namespace
}  // namespace atomq::report
