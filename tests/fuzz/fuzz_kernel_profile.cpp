// The kernel profile reader: parse -> analyze with the fixed table -> write -> read again.
#include "atomq/model/analysis.hpp"
#include "fuzz_support.hpp"

using namespace atomq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  model::KernelProfile profile;
  try {
    profile = model::parse_kernel_profile(fuzz::text_of(data, size), "fuzz input");
  } catch (const model::ProfileError&) {
    return 0;  // refused with the reader's own error: what the reader must do
  }
  fuzz::check_analysis_written(model::analyze(profile, fuzz::fixed_model()));
  fuzz::check_profile_round_trip(profile);
  return 0;
}
