#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "atomq/model/analysis_json.hpp"
#include "atomq/model/rules.hpp"
#include "model_fixture.hpp"

namespace atomq::model {
namespace {

using nlohmann::json;

TEST(Rules, JsonOverridesOnlyTheNamedThresholds) {
  Rules r;
  EXPECT_EQ(apply_rules_json(R"({"severe_utilization": 0.95, "high_conflict_min_k": 8})", r), "");
  EXPECT_DOUBLE_EQ(r.severe_utilization, 0.95);
  EXPECT_DOUBLE_EQ(r.high_conflict_min_k, 8);
  EXPECT_DOUBLE_EQ(r.potential_utilization, default_rules().potential_utilization);
  // The writer and the reader use the same list.
  Rules round;
  EXPECT_EQ(apply_rules_json(rules_to_json(r), round), "");
  EXPECT_DOUBLE_EQ(round.severe_utilization, 0.95);
}

TEST(Rules, TermsSwitchOffByNameAndRoundTrip) {
  Rules r;
  for (ModelTerm t : enum_values<ModelTerm>()) EXPECT_TRUE(r.uses(t)) << enum_name(t);
  EXPECT_EQ(apply_rules_json(R"({"terms_off": ["units_in_sequence", "overlap_interval"]})", r), "");
  EXPECT_FALSE(r.uses(ModelTerm::kUnitsInSequence));
  EXPECT_FALSE(r.uses(ModelTerm::kOverlapInterval));
  EXPECT_TRUE(r.uses(ModelTerm::kL2HotAddress));
  Rules round;
  EXPECT_EQ(apply_rules_json(rules_to_json(r), round), "");
  EXPECT_EQ(round.terms_off, r.terms_off);
  // The default document names no term; an empty list switches every term on again.
  EXPECT_EQ(rules_to_json(default_rules()).find("terms_off"), std::string::npos);
  EXPECT_EQ(apply_rules_json(R"({"terms_off": []})", r), "");
  EXPECT_EQ(r.terms_off, 0u);
  const std::string error = apply_rules_json(R"({"terms_off": ["no_such_term"]})", r);
  EXPECT_NE(error.find("terms_off"), std::string::npos) << error;
  EXPECT_NE(error.find("units_in_sequence"), std::string::npos) << error;  // names the choices
}

TEST(Rules, BadOverridesAreRejectedWithTheKey) {
  Rules r;
  EXPECT_NE(apply_rules_json(R"({"severity": 1})", r).find("'severity'"), std::string::npos);
  EXPECT_NE(apply_rules_json(R"({"severe_utilization": "high"})", r).find("'severe_utilization'"),
            std::string::npos);
  EXPECT_NE(apply_rules_json(R"({"potential_utilization": 0.95})", r).find("potential"),
            std::string::npos);
  EXPECT_NE(apply_rules_json("[", r), "");
  EXPECT_DOUBLE_EQ(r.potential_utilization, default_rules().potential_utilization);  // unchanged after errors
  EXPECT_NE(apply_rules_json(R"({"l2_potential_utilization": 0.95})", r).find("l2_potential"), std::string::npos);
}

TEST(Rules, ThresholdsDecideTheClass) {
  const ServiceTimeModel model(test::make_h200_like_table());
  test::ProfileSpec s;
  s.active_cycles_sum = test::cycles_for_utilization(
      s.instructions, test::oracle_s(32, 32, 0, calibration::OpVariant::kAdd, {1}), 0.8);
  const KernelProfile p = test::make_profile(s);
  EXPECT_EQ(analyze(p, model).utilization_class, UtilizationClass::kPotential);
  Rules strict;
  strict.potential_utilization = 0.85;
  EXPECT_EQ(analyze(p, model, strict).utilization_class, UtilizationClass::kNotAtomicBound);
  Rules loose;
  loose.severe_utilization = 0.75;
  EXPECT_EQ(analyze(p, model, loose).utilization_class, UtilizationClass::kSevere);
}

// A kernel at U 95% with 32-way bank conflicts: severe, with a conflict finding and its what-ifs.
KernelAnalysis conflicted_kernel() {
  const ServiceTimeModel model(test::make_h200_like_table());
  test::ProfileSpec s;
  s.wavefronts_per_instruction = 32;
  s.active_cycles_sum = test::cycles_for_utilization(
      s.instructions, test::oracle_s(32, 32, 0, calibration::OpVariant::kAdd, {0}), 0.95);
  return analyze(test::make_profile(s), model);
}

TEST(AnalysisJson, CarriesFormatClassFindingsAndWhatIfs) {
  const KernelAnalysis a = conflicted_kernel();
  const json doc = json::parse(analysis_to_json(a));
  EXPECT_EQ(doc["format"], "atomq.analysis");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_EQ(doc["class"], "severe");
  EXPECT_NEAR(doc["utilization"]["mean"].get<double>(), 0.95, 1e-9);
  bool conflict = false;
  for (const json& f : doc["findings"])
    if (f["kind"] == "high_utilization_high_conflict") {
      conflict = true;
      EXPECT_FALSE(f["what_ifs"].empty());
      EXPECT_GT(f["what_ifs"][0]["speedup"].get<double>(), 1.0);
    }
  EXPECT_TRUE(conflict);
}

// Each what-if's stable id, and the recommended what-if with the gain every output shows.
TEST(AnalysisJson, WhatIfsCarryTheirIdAndTheRecommendedOne) {
  const KernelAnalysis a = conflicted_kernel();
  const json doc = json::parse(analysis_to_json(a));
  std::vector<std::string> ids;
  for (const json& f : doc["findings"])
    for (const json& w : f["what_ifs"]) {
      ASSERT_TRUE(w.contains("id")) << w.dump();
      EXPECT_TRUE(parse_enum<WhatIfId>(w["id"].get<std::string>())) << w["id"];
      ids.push_back(w["id"].get<std::string>());
    }
  EXPECT_NE(std::find(ids.begin(), ids.end(), "replicate"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "no_conflicts"), ids.end());
  const WhatIf* w = a.recommended_what_if();
  ASSERT_NE(w, nullptr);
  const json& r = doc["recommended_what_if"];
  EXPECT_EQ(r["id"], "no_conflicts");
  EXPECT_EQ(r["change"], w->change);
  EXPECT_EQ(doc["findings"][r["finding"].get<std::size_t>()]["what_ifs"][r["what_if"].get<std::size_t>()]["change"],
            w->change);
  EXPECT_DOUBLE_EQ(r["gain_low"].get<double>(), w->gain_low());
  EXPECT_DOUBLE_EQ(r["gain_high"].get<double>(), w->gain_high());

  test::ProfileSpec idle;
  idle.active_cycles_sum *= 10;  // the unit mostly idle: no what-if
  const ServiceTimeModel model(test::make_h200_like_table());
  EXPECT_TRUE(json::parse(analysis_to_json(analyze(test::make_profile(idle), model)))["recommended_what_if"].is_null());
}

TEST(AnalysisJson, InsufficientDataStillSerializes) {
  const ServiceTimeModel model(test::make_h200_like_table());
  KernelProfile p = test::make_profile(test::ProfileSpec{});
  p.counters.clear();
  const json doc = json::parse(analysis_to_json(analyze(p, model)));
  EXPECT_EQ(doc["class"], "insufficient_data");
  EXPECT_EQ(doc["findings"][0]["kind"], "insufficient_data");
  EXPECT_FALSE(doc["findings"][0]["details"].empty());
}

TEST(ComparisonJson, RowsAndSummary) {
  const ServiceTimeModel model(test::make_h200_like_table());
  test::ProfileSpec s;
  const KernelAnalysis a = analyze(test::make_profile(s), model);
  s.name = "other";
  s.active_cycles_sum *= 2;
  const KernelAnalysis b = analyze(test::make_profile(s), model);
  const json doc = json::parse(comparison_to_json(compare(a, b)));
  EXPECT_EQ(doc["format"], "atomq.comparison");
  EXPECT_EQ(doc["more_atomic_bound"], "a");
  EXPECT_NEAR(doc["speedup_b_over_a"].get<double>(), 0.5, 1e-9);
  EXPECT_FALSE(doc["rows"].empty());
}

}  // namespace
}  // namespace atomq::model
