// What this build's writers make of real inputs conforms to the schemas: the bundled table
// written again, the recorded profiles (runs and model fixtures) written again, analyzed and
// compared on the bundled table, and put into run documents.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/analysis_json.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/run_document/run_document.hpp"
#include "schema_test_util.hpp"

namespace atomq::schema::test {
namespace {

using nlohmann::json;

const std::string kTable = std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json";

const model::ServiceTimeModel& bundled_model() {
  static const model::ServiceTimeModel m(calibration::load_service_table(kTable));
  return m;
}

std::vector<run::RunDocument> recorded_runs() {
  std::vector<run::RunDocument> runs;
  for (const std::string& file : json_files(ATOMQ_RECORDED_RUNS_DIR))
    if (std::filesystem::path(file).filename() != "manifest.json") runs.push_back(run::load_run_document(file));
  return runs;
}

// The model fixtures' profiles: per-instruction counts (CAS loops) and L2 counters.
std::vector<model::KernelProfile> fixture_profiles() {
  std::vector<model::KernelProfile> out;
  for (const std::string& file : json_files(ATOMQ_MODEL_FIXTURE_DIR))
    out.push_back(model::kernel_profile_from_json(load_json_file(file).at("profile"), file));
  return out;
}

TEST(SchemaWriters, ServiceTableConforms) {
  const json written = json::parse(calibration::serialize_service_table(calibration::load_service_table(kTable)));
  EXPECT_TRUE(conforms("service_table", written, "serialize_service_table(GH100)"));
}

TEST(SchemaWriters, ProfilesAnalysesAndRunDocumentsConform) {
  int kernels = 0;
  for (const run::RunDocument& run : recorded_runs()) {
    std::vector<model::KernelAnalysis> analyses;
    for (const model::KernelProfile& p : run.profiles) {
      EXPECT_TRUE(conforms("kernel_profile", model::kernel_profile_to_json(p), run.label + ": " + p.kernel_name));
      analyses.push_back(model::analyze(p, bundled_model()));
      const json analysis = model::analysis_json(analyses.back());
      EXPECT_TRUE(conforms("analysis", analysis, run.label + ": analysis of " + p.kernel_name));
      // This build writes the fields added within version 1, so their stricter branch is checked.
      EXPECT_TRUE(analysis.contains("binding_unit") && analysis["inputs"].contains("active_lanes_basis"));
      ++kernels;
    }
    const json doc = run::run_document_json(run.info, run.profiles, analyses);
    EXPECT_TRUE(conforms("run_document", doc, run.label + " written again"));
  }
  EXPECT_GE(kernels, 18);
}

TEST(SchemaWriters, FixtureAnalysesWithSitesAndL2Conform) {
  bool sites = false, l2 = false, what_ifs = false;
  for (const model::KernelProfile& p : fixture_profiles()) {
    EXPECT_TRUE(conforms("kernel_profile", model::kernel_profile_to_json(p), p.kernel_name));
    const json analysis = model::analysis_json(model::analyze(p, bundled_model()));
    EXPECT_TRUE(conforms("analysis", analysis, "analysis of " + p.kernel_name));
    sites = sites || !analysis["sites"].empty();
    l2 = l2 || analysis["l2"]["evaluated"] == true;
    for (const json& f : analysis["findings"]) what_ifs = what_ifs || !f["what_ifs"].empty();
  }
  EXPECT_TRUE(sites) << "no fixture exercised the atomic sites";
  EXPECT_TRUE(l2) << "no fixture exercised the evaluated L2 queue";
  EXPECT_TRUE(what_ifs) << "no fixture exercised a what-if";
}

TEST(SchemaWriters, ComparisonsConform) {
  std::vector<model::KernelAnalysis> analyses;
  for (const run::RunDocument& run : recorded_runs())
    for (const model::KernelProfile& p : run.profiles) analyses.push_back(model::analyze(p, bundled_model()));
  ASSERT_GE(analyses.size(), 2u);
  for (size_t i = 0; i + 1 < analyses.size(); ++i) {
    const json doc = json::parse(model::comparison_to_json(model::compare(analyses[i], analyses[i + 1])));
    EXPECT_TRUE(conforms("comparison", doc, analyses[i].kernel_name + " vs " + analyses[i + 1].kernel_name));
  }
}

}  // namespace
}  // namespace atomq::schema::test
