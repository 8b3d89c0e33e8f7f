// Profiles recorded from real runs, evaluated on the bundled calibrated table. Each fixture
// in fixtures/ is {"provenance": "...", "profile": <atomq.kernel_profile>, "expected":
// {"class": "..." or ["...", "..."], "time_tolerance": 0.25}}; for atomic-bound kernels the predicted
// atomic-bound time of the binding unit must match the measured duration within the
// tolerance. Optional expectations (fixtures/README.md): "l2_class", "binding_unit",
// "finding_kinds" (each present), "forbidden_finding_kinds" (none present), and the what-ifs'
// (check_what_ifs below), named by their ids.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "atomq/model/analysis.hpp"
#include "atomq/model/metric_names.hpp"
#include "bundled_model.hpp"

namespace atomq::model {
namespace {

// The optional expectations of a fixture: the L2 class, the binding unit, finding kinds.
void check_optional_expectations(const KernelAnalysis& a, const nlohmann::json& expected) {
  if (expected.contains("l2_class")) {
    EXPECT_TRUE(a.l2.evaluated) << a.l2.not_evaluated_reason;
    EXPECT_EQ(enum_name(a.l2.utilization_class), expected.at("l2_class").get<std::string>());
  }
  if (expected.contains("binding_unit"))
    EXPECT_EQ(enum_name(a.binding_unit), expected.at("binding_unit").get<std::string>());
  for (const auto& kind : expected.value("finding_kinds", nlohmann::json::array())) {
    const auto parsed = parse_enum<FindingKind>(kind.get<std::string>());
    ASSERT_TRUE(parsed) << "unknown finding kind " << kind;
    EXPECT_TRUE(a.has(*parsed)) << "expected finding " << kind;
  }
  for (const auto& kind : expected.value("forbidden_finding_kinds", nlohmann::json::array())) {
    const auto parsed = parse_enum<FindingKind>(kind.get<std::string>());
    ASSERT_TRUE(parsed) << "unknown finding kind " << kind;
    EXPECT_FALSE(a.has(*parsed)) << "forbidden finding " << kind;
  }
}

// Every what-if of the analysis, over all findings.
std::vector<const WhatIf*> all_what_ifs(const KernelAnalysis& a) {
  std::vector<const WhatIf*> out;
  for (const Finding& f : a.findings)
    for (const WhatIf& w : f.what_ifs) out.push_back(&w);
  return out;
}

// The id a what-if expectation names ("what_if"), parsed; an unknown id fails the test.
WhatIfId expected_id(const nlohmann::json& id) {
  const auto parsed = parse_enum<WhatIfId>(id.get<std::string>());
  EXPECT_TRUE(parsed) << "unknown what-if id " << id;
  return parsed.value_or(WhatIfId::kCustom);
}

// The last what-if that an expectation names: by its id ("what_if"); an expectation written
// before the ids ("change_contains", words of the change text) is matched on the text instead.
const WhatIf* what_if_named(const std::vector<const WhatIf*>& what_ifs, const nlohmann::json& fix) {
  const WhatIf* match = nullptr;
  for (const WhatIf* w : what_ifs)
    if (fix.contains("what_if") ? w->id == expected_id(fix.at("what_if"))
                                : w->change.find(fix.at("change_contains").get<std::string>()) != std::string::npos)
      match = w;
  return match;
}

// "what_if_interval": {"what_if", "measured_gain"[, "inside": false, "why"]}: the gain a fix
// measured (another program computing the same result) lies in the interval of the what-if of
// that id; a known miss ("inside": false, with why) lies outside it, so a change either way fails.
void check_what_if_interval(const std::vector<const WhatIf*>& what_ifs, const nlohmann::json& fix) {
  const WhatIf* match = what_if_named(what_ifs, fix);
  ASSERT_NE(match, nullptr) << "no what-if " << fix;
  ASSERT_TRUE(match->interval.evaluated) << match->change;
  const double measured = fix.at("measured_gain").get<double>();
  EXPECT_EQ(match->interval.contains(measured), fix.value("inside", true))
      << match->change << ": measured " << measured << "x outside " << match->interval.low << "x-"
      << match->interval.high << "x";
}

// "what_if_measured": {"what_if", "measured_ns", "max_factor"}: the what-if of that id predicts
// the time the fix measured (its own recorded run) within the factor, either way.
void check_what_if_measured(const std::vector<const WhatIf*>& what_ifs, const nlohmann::json& fix) {
  const WhatIf* match = what_if_named(what_ifs, fix);
  ASSERT_NE(match, nullptr) << "no what-if " << fix;
  ASSERT_TRUE(match->predicted_time_ns.has_value());
  const double ratio = *match->predicted_time_ns / fix.at("measured_ns").get<double>();
  const double factor = fix.at("max_factor").get<double>();
  EXPECT_LE(ratio, factor) << match->change;
  EXPECT_GE(ratio, 1.0 / factor) << match->change;
}

// "forbidden_what_ifs": no what-if has these ids (e.g. "privatize" for a kernel that already
// privatizes; "forbidden_what_if_words", written before the ids, names words of the change text);
// then the two checks above where the fixture asks for them.
void check_what_ifs(const KernelAnalysis& a, const nlohmann::json& expected) {
  const auto what_ifs = all_what_ifs(a);
  for (const auto& id : expected.value("forbidden_what_ifs", nlohmann::json::array()))
    for (const WhatIf* w : what_ifs) EXPECT_NE(w->id, expected_id(id)) << "forbidden what-if: " << w->change;
  for (const auto& word : expected.value("forbidden_what_if_words", nlohmann::json::array()))
    for (const WhatIf* w : what_ifs)
      EXPECT_EQ(w->change.find(word.get<std::string>()), std::string::npos) << "forbidden what-if: " << w->change;
  if (expected.contains("what_if_interval")) check_what_if_interval(what_ifs, expected.at("what_if_interval"));
  if (expected.contains("what_if_measured")) check_what_if_measured(what_ifs, expected.at("what_if_measured"));
}

// "class" is one class, or a list of the classes accepted for a kernel whose U sits on a
// boundary within the calibration's run-to-run spread (fixtures/README.md).
bool class_expected(UtilizationClass c, const nlohmann::json& expected) {
  if (expected.is_string()) return enum_name(c) == expected.get<std::string>();
  for (const auto& name : expected)
    if (enum_name(c) == name.get<std::string>()) return true;
  return false;
}

// The predicted atomic-bound time of the unit that binds.
std::optional<double> bound_time_ns(const KernelAnalysis& a) {
  return a.binding_unit == BindingUnit::kL2AtomicUnit ? a.l2.atomic_bound_time_ns
                                                      : a.utilization.atomic_bound_time_ns;
}

TEST(RecordedRuns, ClassAndPredictedTimeMatchTheMeasurement) {
  std::vector<std::filesystem::path> fixtures;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(ATOMQ_MODEL_FIXTURE_DIR, ec))
    if (entry.path().extension() == ".json") fixtures.push_back(entry.path());
  ASSERT_FALSE(fixtures.empty()) << "no recorded profiles in " << ATOMQ_MODEL_FIXTURE_DIR;

  for (const auto& path : fixtures) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    ASSERT_TRUE(doc.contains("provenance")) << "a recorded profile says where it came from";
    const KernelProfile profile = kernel_profile_from_json(doc.at("profile"), path.string());
    const ServiceTimeModel& model = test::bundled_model_for(profile);  // its GPU's bundled table
    const KernelAnalysis a = analyze(profile, model);
    ASSERT_TRUE(a.evaluated);
    const auto& expected = doc.at("expected");
    EXPECT_TRUE(class_expected(a.utilization_class, expected.at("class")))
        << "class " << enum_name(a.utilization_class) << ", expected " << expected.at("class");
    // A null tolerance: the class comes from a CAS retry loop, not from U (no bound time).
    if (a.utilization_class == UtilizationClass::kSevere && !expected.at("time_tolerance").is_null()) {
      const auto predicted = bound_time_ns(a);
      const auto measured = profile.counter(metric::kDurationNs);
      ASSERT_TRUE(predicted && measured);
      EXPECT_NEAR(*predicted / *measured, 1.0, expected.at("time_tolerance").get<double>());
    }
    check_optional_expectations(a, expected);
    check_what_ifs(a, expected);
  }
}

}  // namespace
}  // namespace atomq::model
