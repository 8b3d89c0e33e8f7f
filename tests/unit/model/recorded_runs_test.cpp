// Profiles recorded from real runs, evaluated on the bundled calibrated table. Each fixture
// in fixtures/ is {"provenance": "...", "profile": <atomq.kernel_profile>, "expected":
// {"class": "...", "time_tolerance": 0.25}}; for atomic-bound kernels the predicted
// atomic-bound time must match the measured duration within the tolerance.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atomq/model/analysis.hpp"

namespace atomq::model {
namespace {

TEST(RecordedRuns, ClassAndPredictedTimeMatchTheMeasurement) {
  const auto table_path = bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100");
  if (!table_path) GTEST_SKIP() << "no calibration/tables/GH100.json";
  std::vector<std::filesystem::path> fixtures;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(ATOMQ_MODEL_FIXTURE_DIR, ec))
    if (entry.path().extension() == ".json") fixtures.push_back(entry.path());
  if (fixtures.empty()) GTEST_SKIP() << "no recorded profiles in " << ATOMQ_MODEL_FIXTURE_DIR;

  const ServiceTimeModel model(calibration::load_service_table(*table_path));
  for (const auto& path : fixtures) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json doc = nlohmann::json::parse(text.str());
    ASSERT_TRUE(doc.contains("provenance")) << "a recorded profile says where it came from";
    const KernelProfile profile = parse_kernel_profile(doc.at("profile").dump(), path.string());
    const KernelAnalysis a = analyze(profile, model);
    ASSERT_TRUE(a.evaluated);
    const auto& expected = doc.at("expected");
    EXPECT_EQ(to_string(a.utilization_class), expected.at("class").get<std::string>());
    if (a.utilization_class == UtilizationClass::kSevere) {
      ASSERT_TRUE(a.utilization.atomic_bound_time_ns && a.inputs.duration_ns);
      EXPECT_NEAR(*a.utilization.atomic_bound_time_ns / *a.inputs.duration_ns, 1.0,
                  expected.at("time_tolerance").get<double>());
    }
  }
}

}  // namespace
}  // namespace atomq::model
