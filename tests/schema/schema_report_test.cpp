// The report's outputs on the recorded runs and the bundled table conform: the per-kernel
// export (summary.json, atomq.kernel_summary) and the comparisons the report makes. The
// schema's columns are the export's (analyzer/report/src/kernel_summary_export.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "atomq/model/analysis_json.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/report/recorded.hpp"
#include "atomq/report/report.hpp"
#include "schema_test_util.hpp"

namespace atomq::schema::test {
namespace {

using nlohmann::json;

const report::Report& recorded_report() {
  static const report::Report built = [] {
    report::ReportRequest request;
    const report::RecordedSet set = report::load_recorded_set(ATOMQ_RECORDED_RUNS_DIR);
    for (const auto& path : set.run_paths) request.runs.push_back(report::load_run_document(path));
    request.table_path = *model::bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100");
    request.table = calibration::load_service_table(request.table_path);
    request.table_origin = "bundled";
    return report::build_report(request);
  }();
  return built;
}

TEST(SchemaReport, KernelSummaryConforms) {
  const json summary = json::parse(report::render_summary_json(recorded_report()));
  EXPECT_TRUE(conforms("kernel_summary", summary, "summary.json of the recorded runs"));
  EXPECT_GE(summary["kernels"].size(), 13u);
}

TEST(SchemaReport, ComparisonsConform) {
  ASSERT_FALSE(recorded_report().comparisons.empty());
  for (const report::ReportComparison& c : recorded_report().comparisons) {
    const json doc = json::parse(model::comparison_to_json(c.result));
    EXPECT_TRUE(conforms("comparison", doc, c.title));
  }
}

TEST(SchemaReport, ColumnsAreTheExportsColumns) {
  std::vector<std::string> exported;
  for (const auto& [name, meaning] : report::summary_columns()) exported.push_back(name);
  const json schema = load_json_file(schema_path("kernel_summary"));
  EXPECT_EQ(schema["definitions"]["row"]["required"].get<std::vector<std::string>>(), exported);
  EXPECT_EQ(schema["properties"]["columns"]["items"]["properties"]["name"]["enum"].get<std::vector<std::string>>(),
            exported);
}

TEST(SchemaReport, RefusesABrokenSummary) {
  json summary = json::parse(report::render_summary_json(recorded_report()));
  summary["kernels"][0].erase("device");
  summary["kernels"][1]["binding_unit"] = "shared";
  summary["kernels"][2]["launches"] = 0;
  std::vector<std::string> at;
  for (const Violation& v : checker("kernel_summary").check(summary)) at.push_back(v.pointer);
  EXPECT_EQ(at, (std::vector<std::string>{"/kernels/0", "/kernels/1/binding_unit", "/kernels/2/launches"}));
}

}  // namespace
}  // namespace atomq::schema::test
