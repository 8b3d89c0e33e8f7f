// The rules: a rule set (JSON), optionally followed by a NUL byte and a kernel profile, is
// applied -> the profile (else the fixed profiles) analyzed with it -> the analysis written;
// the rule set is written and read again to the same rules.
#include <cstring>

#include "atomq/model/analysis.hpp"
#include "atomq/model/rules.hpp"
#include "fuzz_support.hpp"

using namespace atomq;

namespace {

void check_rules_round_trip(const model::Rules& rules) {
  const std::string text = model::rules_to_json(rules);
  model::Rules back;
  if (const std::string error = model::apply_rules_json(text, back); !error.empty())
    fuzz::round_trip_failure("the rules reader refuses the writer's text: " + error, text);
  if (model::rules_to_json(back) != text) fuzz::round_trip_failure("the rules read back differ", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = fuzz::text_of(data, size);
  const size_t nul = input.find('\0');
  model::Rules rules;
  if (!model::apply_rules_json(input.substr(0, nul), rules).empty()) return 0;
  check_rules_round_trip(rules);
  if (nul != std::string::npos) {
    try {
      const model::KernelProfile profile = model::parse_kernel_profile(input.substr(nul + 1), "fuzz profile");
      fuzz::check_analysis_written(model::analyze(profile, fuzz::fixed_model(), rules));
    } catch (const model::ProfileError&) {
    }
    return 0;
  }
  for (const model::KernelProfile& profile : fuzz::fixed_profiles())
    fuzz::check_analysis_written(model::analyze(profile, fuzz::fixed_model(), rules));
  return 0;
}
