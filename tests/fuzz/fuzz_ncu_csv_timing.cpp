// The ncu CSV import's time grows linearly with its input, whatever the input holds (one stray
// quote once made it quadratic). Each input's part after the header is repeated to 1 MiB and
// parsed, timed on this thread's CPU clock. A parse slower than 40 ms per MiB (about twice the
// instrumented build's usual speed) is judged: the same rows repeated to 256 KiB are parsed too,
// each size three times (the fastest counts), and the time per byte of the larger over that of
// the smaller is 1 for a linear reader, 4 for a quadratic one; above 3 aborts (caches alone
// made it 2.2 once). The ratio is measured in one run, so the machine's speed and load cancel
// out; an absolute limit did not (an instrumented build on a busy machine crossed it with no
// change to the code). The time gates only which inputs are measured twice, never a failure.
// The largest ratio is printed when the run ends; libFuzzer's -timeout catches a hang.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "atomq/analyzer/ncu_csv.hpp"
#include "fuzz_support.hpp"

using namespace atomq;

namespace {

constexpr size_t kSmallBytes = size_t{1} << 18;
constexpr size_t kLargeBytes = size_t{1} << 20;
constexpr double kMaxRatio = 3.0;     // linear 1, quadratic 4
constexpr double kJudgedFromMs = 40.0;  // a 1 MiB parse at least this slow is judged

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

double parse_ms(const std::string& text) {
  const double start = thread_cpu_ms();
  try {
    (void)analyzer::parse_ncu_csv(text, "fuzz.csv");
  } catch (const analyzer::NcuCsvError&) {
  }
  return thread_cpu_ms() - start;
}

double fastest_parse_ms(const std::string& text, int times) {
  double best = parse_ms(text);
  for (int i = 1; i < times; ++i) best = std::min(best, parse_ms(text));
  return best;
}

std::string repeated_to(const std::string& head, const std::string& rest, size_t bytes) {
  std::string text = head;
  text.reserve(bytes + rest.size());
  while (text.size() < bytes) text += rest;
  return text;
}

struct Largest {
  double ratio = 0, small_ms = 0, large_ms = 0;
  long long judged = 0;
  ~Largest() {
    std::fprintf(stderr,
                 "fuzz_ncu_csv_timing: %lld inputs judged; largest ratio of time per byte, 1 MiB over 256 KiB: %.2f "
                 "(%.1f ms, %.1f ms)\n",
                 judged, ratio, large_ms, small_ms);
  }
};
Largest largest;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = fuzz::text_of(data, size);
  (void)parse_ms(input);
  const size_t value = input.find("Metric Value");
  const size_t body = value == std::string::npos ? 0 : input.find('\n', value);
  if (body == std::string::npos || body + 1 >= input.size()) return 0;
  const std::string head = input.substr(0, body == 0 ? 0 : body + 1);
  const std::string rest = input.substr(head.size());
  const std::string large = repeated_to(head, rest, kLargeBytes);
  if (parse_ms(large) < kJudgedFromMs * static_cast<double>(large.size()) / kLargeBytes) return 0;
  const std::string small = repeated_to(head, rest, kSmallBytes);
  const double small_ms = fastest_parse_ms(small, 3);
  const double large_ms = fastest_parse_ms(large, 3);
  const double ratio = small_ms > 0 ? (large_ms / large.size()) / (small_ms / small.size())
                                    : std::numeric_limits<double>::infinity();
  ++largest.judged;
  if (ratio > largest.ratio) largest.ratio = ratio, largest.small_ms = small_ms, largest.large_ms = large_ms;
  if (ratio > kMaxRatio) {
    std::fprintf(stderr, "fuzz_ncu_csv_timing: %zu bytes took %.1f ms, %zu bytes %.1f ms: %.2f times the time per byte\n",
                 large.size(), large_ms, small.size(), small_ms, ratio);
    std::abort();
  }
  return 0;
}
