// The ncu CSV import's time: linear in the input, whatever it holds (one stray quote made it
// quadratic). The input, then the input with its part after the header repeated to 1 MiB (a
// small input cannot show a quadratic reader), are each parsed and timed on this thread's CPU
// clock (load on the machine does not count); slower than 100 ms per MB plus 20 ms aborts.
// The slowest input (ms per MB) is printed when the run ends.
#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "atomq/analyzer/ncu_csv.hpp"
#include "fuzz_support.hpp"

using namespace atomq;

namespace {

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct Slowest {
  double share = 0, ms = 0;  // the largest share of its limit an input took, and its time
  size_t bytes = 0;
  double large_ms_per_mb = 0;  // the slowest input of 100 KB or more (the constant negligible)
  size_t large_bytes = 0;
  long long parses = 0;
  ~Slowest() {
    std::fprintf(stderr,
                 "fuzz_ncu_csv_timing: %lld parses; closest to the limit: %.2f ms for %zu bytes (%.0f%% of its "
                 "limit); slowest of 100 KB or more: %.1f ms per MB (%zu bytes)\n",
                 parses, ms, bytes, 100 * share, large_ms_per_mb, large_bytes);
  }
};
Slowest slowest;

void timed_parse(const std::string& text) {
  const double start = thread_cpu_ms();
  try {
    (void)analyzer::parse_ncu_csv(text, "fuzz.csv");
  } catch (const analyzer::NcuCsvError&) {
  }
  const double ms = thread_cpu_ms() - start;
  const double mb = static_cast<double>(text.size()) / 1e6;
  const double limit = 100.0 * mb + 20.0;
  ++slowest.parses;
  if (ms / limit > slowest.share) slowest.share = ms / limit, slowest.ms = ms, slowest.bytes = text.size();
  if (text.size() >= 100000 && ms / mb > slowest.large_ms_per_mb) slowest.large_ms_per_mb = ms / mb, slowest.large_bytes = text.size();
  if (ms > limit) {
    std::fprintf(stderr, "fuzz_ncu_csv_timing: %.1f ms for %zu bytes (limit %.1f ms)\n", ms, text.size(), limit);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = fuzz::text_of(data, size);
  timed_parse(input);
  const size_t value = input.find("Metric Value");
  const size_t body = value == std::string::npos ? 0 : input.find('\n', value);
  if (body == std::string::npos || body + 1 >= input.size()) return 0;
  const std::string head = input.substr(0, body == 0 ? 0 : body + 1);
  const std::string rest = input.substr(head.size());
  std::string large = head;
  large.reserve((size_t{1} << 20) + rest.size() + head.size());
  while (large.size() < (size_t{1} << 20)) large += rest;
  timed_parse(large);
  return 0;
}
