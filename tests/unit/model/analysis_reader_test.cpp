// The stored analysis reads back as written (analysis_from_json, the report's path for a run
// document of this build): over every recorded profile of the tree, evaluated with the bundled
// table, analysis_json of the analysis read back is the JSON written. A damaged analysis is
// refused naming the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "atomq/model/analysis_json.hpp"
#include "atomq/model/table_selection.hpp"

namespace atomq::model {
namespace {

// Every kernel profile in the recorded runs and model fixtures of the tree.
std::vector<std::pair<std::string, KernelProfile>> recorded_profiles() {
  std::vector<std::pair<std::string, KernelProfile>> out;
  for (const std::string dir : {ATOMQ_VALIDATION_RUNS_DIR, ATOMQ_MODEL_FIXTURE_DIR, ATOMQ_RECORDED_RUNS_DIR}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (entry.path().extension() != ".json") continue;
      std::ifstream in(entry.path());
      const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
      if (doc.is_discarded() || !doc.is_object()) continue;
      const std::string path = entry.path().string();
      if (doc.contains("kernels") && doc.at("kernels").is_array())
        for (const auto& k : doc.at("kernels")) out.emplace_back(path, kernel_profile_from_json(k.at("profile"), path));
      else if (doc.contains("profile"))
        out.emplace_back(path, kernel_profile_from_json(doc.at("profile"), path));
    }
  }
  return out;
}

const ServiceTimeModel& bundled_model() {
  static const ServiceTimeModel model(
      calibration::load_service_table(*bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100")));
  return model;
}

TEST(AnalysisReader, EveryRecordedAnalysisReadsBackAsWritten) {
  const auto profiles = recorded_profiles();
  ASSERT_GT(profiles.size(), 40u) << "the recorded runs of the tree";
  int with_sites = 0, with_l2 = 0, with_what_ifs = 0;
  for (const auto& [path, profile] : profiles) {
    SCOPED_TRACE(path + ": " + profile.kernel_name);
    const nlohmann::json written = analysis_json(analyze(profile, bundled_model()));
    const KernelAnalysis read = analysis_from_json(written, path);
    EXPECT_EQ(analysis_json(read).dump(), written.dump());  // as text: a NaN written is null
    with_sites += read.sites.empty() ? 0 : 1;
    with_l2 += read.l2.evaluated ? 1 : 0;
    with_what_ifs += read.recommended_what_if() ? 1 : 0;
  }
  // The round trip covered each part of the document.
  EXPECT_GT(with_sites, 0);
  EXPECT_GT(with_l2, 0);
  EXPECT_GT(with_what_ifs, 0);
}

TEST(AnalysisReader, ADamagedAnalysisIsRefusedNamingTheField) {
  const auto profiles = recorded_profiles();
  ASSERT_FALSE(profiles.empty());
  nlohmann::json doc = analysis_json(analyze(profiles.front().second, bundled_model()));
  const auto error_of = [](const nlohmann::json& d) -> std::string {
    try {
      (void)analysis_from_json(d, "run.json: kernels[0].analysis");
    } catch (const AnalysisJsonError& e) {
      return e.what();
    }
    return "";
  };
  nlohmann::json bad = doc;
  bad["utilization"]["mean"] = "high";
  EXPECT_NE(error_of(bad).find("run.json: kernels[0].analysis: field 'utilization.mean'"), std::string::npos)
      << error_of(bad);
  bad = doc;
  bad["class"] = "dire";
  EXPECT_NE(error_of(bad).find("field 'class'"), std::string::npos) << error_of(bad);
  bad = doc;
  bad.erase("findings");
  EXPECT_NE(error_of(bad).find("field 'findings': missing"), std::string::npos) << error_of(bad);
  bad = doc;
  bad["recommended_what_if"] = {{"finding", 99}, {"what_if", 0}};
  EXPECT_NE(error_of(bad).find("recommended_what_if"), std::string::npos) << error_of(bad);
  bad = doc;
  bad["version"] = 2;
  EXPECT_NE(error_of(bad).find("version"), std::string::npos) << error_of(bad);
}

}  // namespace
}  // namespace atomq::model
