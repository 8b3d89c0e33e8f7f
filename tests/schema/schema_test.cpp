// The committed example documents conform to their schemas (docs/schemas/), and the schemas
// refuse broken ones: a missing required field, a wrong type, an unknown enum name or field.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "schema_test_util.hpp"

namespace atomq::schema::test {
namespace {

using nlohmann::json;

const std::string kRecorded = ATOMQ_RECORDED_RUNS_DIR;

json recorded_run() { return load_json_file(kRecorded + "/multi_kernel_app.json"); }

// The pointers of the innermost violations, for checks that name the failing field.
std::vector<std::string> pointers(const std::string& schema, const json& doc) {
  std::vector<std::string> out;
  for (const Violation& v : checker(schema).check(doc)) out.push_back(v.pointer);
  return out;
}

TEST(SchemaDocuments, RecordedRunsConform) {
  int runs = 0;
  for (const std::string& file : json_files(kRecorded)) {
    const json doc = load_json_file(file);
    if (std::filesystem::path(file).filename() == "manifest.json") continue;  // the demo's list
    ASSERT_EQ(doc.value("format", ""), "atomq.analysis_run") << file;
    EXPECT_TRUE(conforms("run_document", doc, file));
    ++runs;
  }
  EXPECT_GE(runs, 13);
}

TEST(SchemaDocuments, ModelFixtureProfilesConform) {
  int profiles = 0;
  for (const std::string& file : json_files(ATOMQ_MODEL_FIXTURE_DIR)) {
    const json doc = load_json_file(file);
    ASSERT_TRUE(doc.contains("profile")) << file << ": a recorded profile with provenance";
    EXPECT_TRUE(conforms("kernel_profile", doc["profile"], file + " /profile"));
    ++profiles;
  }
  EXPECT_GE(profiles, 18);
}

// The validation suite's recorded runs and timings (atomq validate, atomq hist --analyze).
TEST(SchemaDocuments, ValidationRunsConform) {
  int runs = 0, timings = 0;
  for (const std::string& file : json_files(ATOMQ_VALIDATION_RUNS_DIR)) {
    const json doc = load_json_file(file);
    const std::string format = doc.value("format", "");
    if (format == "atomq.validation_timings") {
      EXPECT_TRUE(conforms("validation_timings", doc, file));
      ++timings;
    }
    if (format != "atomq.analysis_run") continue;  // timings, expectations, hist results
    EXPECT_TRUE(conforms("run_document", doc, file));
    ++runs;
  }
  EXPECT_GE(runs, 15);
  EXPECT_GE(timings, 14);  // one per case of the suite
}

TEST(SchemaDocuments, BundledTablesConform) {
  int tables = 0;
  for (const std::string& file : json_files(ATOMQ_BUNDLED_TABLE_DIR)) {
    EXPECT_TRUE(conforms("service_table", load_json_file(file), file));
    ++tables;
  }
  EXPECT_GE(tables, 1);
}

TEST(SchemaRefuses, MissingRequiredField) {
  json doc = recorded_run();
  doc["kernels"][0]["profile"]["device"].erase("sm_count");
  EXPECT_EQ(pointers("run_document", doc), std::vector<std::string>{"/kernels/0/profile/device"});
  doc = recorded_run();
  doc.erase("kernels");
  EXPECT_FALSE(conforms("run_document", doc, "no kernels"));
}

TEST(SchemaRefuses, WrongType) {
  json doc = recorded_run();
  doc["kernels"][0]["profile"]["kernel"]["launch"]["grid"][1] = "1";
  const auto at = pointers("run_document", doc);
  EXPECT_NE(std::find(at.begin(), at.end(), "/kernels/0/profile/kernel/launch/grid/1"), at.end());
  doc = recorded_run();
  doc["kernels"][0]["profile"]["counters"]["sm__cycles_active.max"] = nullptr;  // NaN written as null
  EXPECT_EQ(pointers("run_document", doc),
            std::vector<std::string>{"/kernels/0/profile/counters/sm__cycles_active.max"});
}

TEST(SchemaRefuses, UnknownEnumName) {
  json doc = recorded_run();
  doc["kernels"][1]["analysis"]["class"] = "bound";
  EXPECT_EQ(pointers("run_document", doc), std::vector<std::string>{"/kernels/1/analysis/class"});
  json table = load_json_file(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  table["cells"][3]["pattern"] = "conflict3";
  EXPECT_EQ(pointers("service_table", table), std::vector<std::string>{"/cells/3/pattern"});
}

TEST(SchemaRefuses, FieldTheReaderRefuses) {
  json doc = recorded_run();
  doc["kernels"][0]["profile"]["hints"]["shared_atomic_width"] = 4;
  EXPECT_EQ(pointers("run_document", doc), std::vector<std::string>{"/kernels/0/profile/hints"});
  doc = recorded_run();
  doc["kernels"][0]["profile"]["counters"]["no_rollup"] = 1.0;
  EXPECT_FALSE(conforms("run_document", doc, "a counter without its rollup"));
}

TEST(SchemaRefuses, BelowTheReadersMinimum) {
  json table = load_json_file(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  table["l2"]["cells"][0]["hottest_slice_share"] = 0.0;
  EXPECT_EQ(pointers("service_table", table), std::vector<std::string>{"/l2/cells/0/hottest_slice_share"});
  table = load_json_file(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  table["version"] = 1;
  EXPECT_EQ(pointers("service_table", table), std::vector<std::string>{"/version"});
}

// An analysis has the fields added within version 1 all together or none of them.
TEST(SchemaRefuses, AnalysisWithSomeLaterFields) {
  json doc = recorded_run();
  doc["kernels"][0]["analysis"].erase("shared_unit_class");
  doc["kernels"][0]["analysis"]["binding_unit"] = "none";
  EXPECT_FALSE(conforms("run_document", doc, "binding_unit without the rest"));
}

TEST(SchemaCheck, JsonPointerFromValijsonContext) {
  EXPECT_EQ(json_pointer({"<root>"}), "");
  EXPECT_EQ(json_pointer({"<root>", "[kernels]", "[0]", "[a/b~c]"}), "/kernels/0/a~1b~0c");
}

TEST(SchemaCheck, UnreadableSchemaNamesTheFile) {
  try {
    SchemaChecker missing(schema_path("no_such_document"));
    FAIL() << "a missing schema was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_document.schema.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace atomq::schema::test
