// Profiles recorded from real runs, evaluated on the bundled calibrated table. Each fixture
// in fixtures/ is {"provenance": "...", "profile": <atomq.kernel_profile>, "expected":
// {"class": "...", "time_tolerance": 0.25}}; for atomic-bound kernels the predicted
// atomic-bound time must match the measured duration within the tolerance.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "atomq/model/analysis.hpp"

namespace atomq::model {
namespace {

TEST(RecordedRuns, ClassAndPredictedTimeMatchTheMeasurement) {
  const auto table_path = bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100");
  ASSERT_TRUE(table_path) << "the bundled calibration/tables/GH100.json is part of the tree";
  std::vector<std::filesystem::path> fixtures;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(ATOMQ_MODEL_FIXTURE_DIR, ec))
    if (entry.path().extension() == ".json") fixtures.push_back(entry.path());
  ASSERT_FALSE(fixtures.empty()) << "no recorded profiles in " << ATOMQ_MODEL_FIXTURE_DIR;

  const ServiceTimeModel model(calibration::load_service_table(*table_path));
  for (const auto& path : fixtures) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    ASSERT_TRUE(doc.contains("provenance")) << "a recorded profile says where it came from";
    const KernelProfile profile = kernel_profile_from_json(doc.at("profile"), path.string());
    const KernelAnalysis a = analyze(profile, model);
    ASSERT_TRUE(a.evaluated);
    const auto& expected = doc.at("expected");
    EXPECT_EQ(enum_name(a.utilization_class), expected.at("class").get<std::string>());
    if (a.utilization_class == UtilizationClass::kSevere) {
      ASSERT_TRUE(a.utilization.atomic_bound_time_ns && a.inputs.duration_ns);
      EXPECT_NEAR(*a.utilization.atomic_bound_time_ns / *a.inputs.duration_ns, 1.0,
                  expected.at("time_tolerance").get<double>());
    }
  }
}

}  // namespace
}  // namespace atomq::model
