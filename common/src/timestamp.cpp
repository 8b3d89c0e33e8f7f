#include "atomq/common/timestamp.hpp"

#include <ctime>

namespace atomq {

namespace {
std::string format_utc_now(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}
}  // namespace

std::string utc_now_iso8601() { return format_utc_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_now_readable() { return format_utc_now("%Y-%m-%d %H:%M UTC"); }

}  // namespace atomq
