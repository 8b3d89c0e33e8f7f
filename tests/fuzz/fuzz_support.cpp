#include "fuzz_support.hpp"

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "atomq/common/json_fields.hpp"
#include "atomq/model/analysis_json.hpp"

namespace atomq::fuzz {

void round_trip_failure(const std::string& what, const std::string& written) {
  std::fprintf(stderr, "ROUND TRIP FAILURE: %s\n--- written ---\n%s\n---\n", what.c_str(),
               written.substr(0, 4000).c_str());
  std::abort();
}

const model::ServiceTimeModel& fixed_model() {
  static const model::ServiceTimeModel model(calibration::load_service_table(
      std::string(ATOMQ_FUZZ_CORPUS_DIR) + "/service_table/gh100_small.json"));
  return model;
}

const std::vector<model::KernelProfile>& fixed_profiles() {
  static const std::vector<model::KernelProfile> profiles = [] {
    // Named, not listed: a fuzzing run may add files to the folder.
    std::vector<model::KernelProfile> out;
    for (const char* name : {"multi_kernel_app-popc_same_ex.json", "multi_kernel_app-cas_distinct.json",
                             "hist-naive_global-u32-single.json", "cas-block_u64-one.json"})
      out.push_back(model::load_kernel_profile(std::string(ATOMQ_FUZZ_CORPUS_DIR) + "/kernel_profile/" + name));
    return out;
  }();
  return profiles;
}

void check_analysis_written(const model::KernelAnalysis& analysis) {
  const std::string text = json_text(model::analysis_json(analysis));
  try {
    (void)nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    round_trip_failure(std::string("the analysis is not valid JSON: ") + e.what(), text);
  }
}

void check_profile_round_trip(const model::KernelProfile& profile) {
  const nlohmann::json written = model::kernel_profile_to_json(profile);
  const std::string text = model::serialize_kernel_profile(profile);
  model::KernelProfile back;
  try {
    back = model::parse_kernel_profile(text, "written profile");
  } catch (const model::ProfileError& e) {
    round_trip_failure(std::string("the profile reader refuses the writer's text: ") + e.what(), text);
  }
  // Compared as documents: a string the writer had to repair (invalid UTF-8) differs here.
  if (model::kernel_profile_to_json(back) != written)
    round_trip_failure("the profile read back differs from the one written", text);
}

}  // namespace atomq::fuzz
