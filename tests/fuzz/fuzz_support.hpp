// What every harness shares: the round-trip failure, the fixed table and profiles the
// evaluation uses, and the check that an analysis is written as JSON a reader can parse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "atomq/model/analysis.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/service_time.hpp"

namespace atomq::fuzz {

// A reader refused, or changed, what a writer wrote: print both sides and abort (a crash to
// libFuzzer, which saves the input).
[[noreturn]] void round_trip_failure(const std::string& what, const std::string& written);

// The input as text.
inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The small table of the corpus (corpus/service_table/gh100_small.json), read once.
const model::ServiceTimeModel& fixed_model();
// Four profiles of corpus/kernel_profile/, read once: what a fuzzed table or rule set evaluates.
const std::vector<model::KernelProfile>& fixed_profiles();

// The analysis is written as valid JSON (analysis_json + json_text).
void check_analysis_written(const model::KernelAnalysis& analysis);

// kernel_profile_to_json(p) is read back by the profile reader to the same document.
void check_profile_round_trip(const model::KernelProfile& profile);

}  // namespace atomq::fuzz
