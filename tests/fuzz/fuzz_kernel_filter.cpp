// The kernel name filter (-k): a pattern, a NUL byte, then a kernel name. The filter either
// refuses the pattern (std::invalid_argument) or matches the name and, a regex, the name
// repeated past 40 KB, without crashing (std::regex overflowed the stack on long names); a
// pattern that is the name quoted always matches it.
#include <re2/re2.h>

#include <cstdlib>
#include <stdexcept>

#include "atomq/analyzer/kernel_filter.hpp"
#include "fuzz_support.hpp"

using namespace atomq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = fuzz::text_of(data, size);
  const size_t nul = input.find('\0');
  const std::string pattern = input.substr(0, nul);
  const std::string name = nul == std::string::npos ? pattern : input.substr(nul + 1);
  std::string long_name = name;  // past the ~30 KB where std::regex overflowed the stack
  while (!name.empty() && long_name.size() < 40000) long_name += name;
  for (const std::string& spec : {"regex:" + pattern, pattern}) {
    try {
      const analyzer::KernelFilter filter(spec);
      (void)filter.matches(name, name);
      if (spec.rfind("regex:", 0) == 0) (void)filter.matches(long_name, long_name);
    } catch (const std::invalid_argument&) {
    }
  }
  if (!name.empty() && !analyzer::KernelFilter("regex:" + re2::RE2::QuoteMeta(name)).matches("", long_name))
    fuzz::round_trip_failure("the quoted name does not match the name", name);
  return 0;
}
