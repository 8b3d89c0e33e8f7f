// Filling each kernel profile's hints (model/include/atomq/model/kernel_profile.hpp:
// shared_atomic_variant, global_atomic_op) from the SASS of the binary that launched it.
// Never fails an analysis: without cuobjdump, or for a kernel the binary does not hold (a
// module loaded at run time, a JIT-compiled PTX), the profile keeps no hint.
// Logs through spdlog; prints nothing.
#pragma once

#include <string>
#include <vector>

#include "atomq/analyzer/sass_atomics.hpp"
#include "atomq/analyzer/sass_listing.hpp"
#include "atomq/model/kernel_profile.hpp"

namespace atomq::analyzer {

struct SassHintSummary {
  SassDumpStatus status = SassDumpStatus::kFailed;
  std::string reason;        // why the SASS could not be read ("" when it was)
  int kernels = 0;           // distinct kernel names among the profiles
  int kernels_in_binary = 0; // of those, found in the binary for the profile's device
  int kernels_hinted = 0;    // of those, holding at least one hint afterwards
};

// Sets a hint the profile does not have yet from what the SASS says; true when it set one.
bool apply_atomic_hints(const SassAtomics& atomics, model::KernelProfile& profile);

// Matches each profile's kernel_name (demangled by the collector; a mangled name works too)
// to the functions of `functions`, picks the arch that suits the profile's device and fills
// its hints. Returns the counts of SassHintSummary (status and reason left as they are).
SassHintSummary fill_hints(std::vector<model::KernelProfile>& profiles, const std::vector<SassFunction>& functions);

// Runs cuobjdump on `binary_path` and fills the hints; logs how many kernels got hints. The
// listed functions go to *functions when given (the per-instruction join reads them).
SassHintSummary fill_hints_from_binary(std::vector<model::KernelProfile>& profiles, const std::string& binary_path,
                                       std::vector<SassFunction>* functions = nullptr);

// For the profiles whose kernel `functions` does not hold (a shared library's, a run-time
// module's): runs cuobjdump on the code objects the collector saved in `directory`
// (loaded_code.hpp), fills their hints and appends the functions found to `functions`. Logs
// how many kernels got hints; does nothing when the folder holds none.
SassHintSummary fill_hints_from_loaded_code(std::vector<model::KernelProfile>& profiles, const std::string& directory,
                                            std::vector<SassFunction>& functions);

// Where `program` runs from, as execvp finds it: a name with a slash as it is, else the first
// executable of that name on PATH; "" when none.
std::string resolve_program_path(const std::string& program);

}  // namespace atomq::analyzer
