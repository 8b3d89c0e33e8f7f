// The fields of an ncu CSV export: its records, numbers and units (ncu_csv_fields.hpp).
#include "ncu_csv_fields.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <unordered_map>

#include "atomq/analyzer/metric_list.hpp"
#include "atomq/analyzer/ncu_csv.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::analyzer {

std::vector<std::string> split_csv_record(const std::string& line, bool* ok) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size();) {
    // The run up to the next byte that matters, found by the library (not byte by byte here).
    const size_t j = line.find_first_of(quoted ? "\"" : "\",\r", i);
    fields.back().append(line, i, (j == std::string::npos ? line.size() : j) - i);
    if (j == std::string::npos) break;
    i = j + 1;
    if (quoted && i < line.size() && line[i] == '"') {  // "" in a quoted field: one quote
      fields.back() += '"';
      ++i;
    } else if (quoted) {
      quoted = false;
    } else if (line[j] == '"') {
      quoted = true;
    } else if (line[j] == ',') {
      fields.emplace_back();
    }  // else '\r', dropped outside quotes
  }
  *ok = !quoted;  // unterminated quote: a truncated file
  return fields;
}

namespace ncu_detail {

[[noreturn]] void fail(const std::string& source, size_t line, const std::string& what) {
  throw NcuCsvError(source + ":" + std::to_string(line) + ": " + what);
}

std::string mib(size_t bytes) {
  return bytes % (size_t{1} << 20) == 0 ? std::to_string(bytes >> 20) + " MiB" : std::to_string(bytes) + " bytes";
}

// False at the end of the input. A quote opens anywhere in a field, as split_csv_record reads it.
bool CsvRecords::next_record(std::vector<std::string>& fields) {
  if (peek() < 0) return false;
  first_line_ = ++line_;
  size_t n = 0, bytes = 0, quote_line = 0;
  const auto field = [&]() -> std::string& {  // the fields' strings are reused from row to row
    if (n == fields.size()) fields.emplace_back();
    return fields[n];
  };
  const auto count = [&](size_t more) {
    if ((bytes += more) > max_bytes_)
      fail(source_, first_line_, "row longer than " + mib(max_bytes_) + " (an unterminated quoted field?)");
  };
  field().clear();
  while (pos_ < end_ || fill(1)) {
    const char* p = buffer_.data() + pos_;
    // The run of bytes that are only copied, found by the C library (one call, not one
    // comparison per byte in this code: the fuzzers' instrumented build reads 10 MB/s with it).
    const char* q = p + std::strcspn(p, quote_line != 0 ? "\"\n" : "\",\n\r");
    if (q < buffer_.data() + end_ && *q == '\0') ++q;  // a NUL of the text: copied too
    count(static_cast<size_t>(q - p) + 1);
    field().append(p, static_cast<size_t>(q - p));
    pos_ += static_cast<size_t>(q - p);
    if (pos_ == end_) continue;
    const char ch = buffer_[pos_++];
    if (quote_line != 0 && ch == '\n') {
      ++line_;
      field() += '\n';
    } else if (quote_line != 0) {  // a quote: doubled, one quote in the text; else the field's end
      if (peek() == '"') field() += static_cast<char>(get());
      else quote_line = 0;
    } else if (ch == '"') {
      quote_line = line_;
    } else if (ch == ',') {
      ++n;
      field().clear();
    } else if (ch == '\n') {
      break;
    }  // else '\r', dropped outside quotes
  }
  if (quote_line != 0)
    fail(source_, quote_line, "unterminated quoted field (the file ends inside it: truncated?)");
  fields.resize(n + 1);
  return true;
}

// "(264, 1, 1)" -> {264, 1, 1}; decimal digits only, nothing after the ")".
bool parse_dim3(const std::string& text, long long out[3]) {
  for (char ch : text)
    if (!std::isdigit(static_cast<unsigned char>(ch)) && ch != '(' && ch != ')' && ch != ',' && ch != ' ') return false;
  long long a = 1, b = 1, c = 1;
  int consumed = 0;
  if (std::sscanf(text.c_str(), " (%lld , %lld , %lld )%n", &a, &b, &c, &consumed) != 3 || consumed == 0) return false;
  for (size_t i = static_cast<size_t>(consumed); i < text.size(); ++i)
    if (text[i] != ' ') return false;
  out[0] = a, out[1] = b, out[2] = c;
  return a > 0 && b > 0 && c > 0;
}

const char* dimension_name(Dimension d) {
  switch (d) {
    case Dimension::kTime: return "a time (nsecond, usecond, msecond, second)";
    case Dimension::kCycles: return "cycles (cycle, Kcycle, Mcycle, Gcycle)";
    case Dimension::kBytes: return "bytes (byte, Kbyte, Mbyte, Gbyte, Tbyte)";
    case Dimension::kPercent: return "a percentage (%)";
    case Dimension::kCount: return "a count (no unit, inst, request, sector, wavefront, warp, thread)";
    case Dimension::kLaunchStatistic: return "a launch statistic (no unit, block, register/thread, SM)";
  }
  return "";
}

// The metrics the model reads and their dimension; any other metric is checked, not kept.
std::optional<Dimension> read_metric_dimension(const std::string& name) {
  static const std::map<std::string, Dimension> dims = [] {
    std::map<std::string, Dimension> m;
    for (const std::string& n : collector_metric_names(true)) {
      Dimension d = Dimension::kCount;
      if (n == model::metric::kDurationNs) d = Dimension::kTime;
      else if (n.find("cycles") != std::string::npos) d = Dimension::kCycles;
      else if (n.find("bytes") != std::string::npos) d = Dimension::kBytes;
      else if (n.find(".pct_of_") != std::string::npos) d = Dimension::kPercent;
      m.emplace(n, d);
    }
    m.emplace(model::metric::kSharedAtomThreadOpsSass, Dimension::kCount);
    for (const char* stat : {"launch__registers_per_thread", "launch__occupancy_limit_blocks",
                             "device__attribute_multiprocessor_count"})
      m.emplace(stat, Dimension::kLaunchStatistic);
    return m;
  }();
  const auto it = dims.find(name);
  return it == dims.end() ? std::nullopt : std::optional<Dimension>(it->second);
}

// A prefixed unit ("Kbyte") of one of the bases: its scale, else nullopt.
std::optional<double> prefixed_scale(const std::string& unit, std::initializer_list<const char*> bases) {
  static const std::map<std::string, double> prefixes = {{"", 1.0}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};
  for (const char* base : bases) {
    const std::string b(base);
    if (unit.size() < b.size() || unit.compare(unit.size() - b.size(), b.size(), b) != 0) continue;
    const auto p = prefixes.find(unit.substr(0, unit.size() - b.size()));
    if (p != prefixes.end()) return p->second;
  }
  return std::nullopt;
}

// The scale of `unit` for a metric of dimension `d`, or nullopt when the unit is another
// dimension's ("Kbyte" on a time, "msecond" on a count, "%" on a count).
namespace {

std::optional<double> compute_unit_scale(const std::string& unit, Dimension d) {
  static const std::map<std::string, double> times = {
      {"nsecond", 1.0}, {"usecond", 1e3}, {"msecond", 1e6}, {"second", 1e9},
      {"ns", 1.0},      {"us", 1e3},      {"ms", 1e6},      {"s", 1e9}};
  switch (d) {
    case Dimension::kTime: {
      const auto t = times.find(unit);
      return t == times.end() ? std::nullopt : std::optional<double>(t->second);
    }
    case Dimension::kCycles: return prefixed_scale(unit, {"cycle"});
    case Dimension::kBytes: return prefixed_scale(unit, {"byte"});
    case Dimension::kPercent: return unit == "%" ? std::optional<double>(1.0) : std::nullopt;
    case Dimension::kCount:
      if (unit.empty()) return 1.0;
      return prefixed_scale(unit, {"inst", "request", "sector", "wavefront", "warp", "thread"});
    case Dimension::kLaunchStatistic:
      return unit.empty() || unit == "block" || unit == "register/thread" || unit == "SM" ? std::optional<double>(1.0)
                                                                                          : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> unit_scale(const std::string& unit, Dimension d) {
  // Every row asks: the answers are remembered per dimension (a few units each in an export).
  thread_local std::unordered_map<std::string, std::optional<double>> known[6];
  auto& cache = known[static_cast<int>(d)];
  const auto it = cache.find(unit);
  if (it != cache.end()) return it->second;
  const auto scale = compute_unit_scale(unit, d);
  if (cache.size() < 256) cache.emplace(unit, scale);
  return scale;
}

// A unit ncu writes for a metric atomq does not read (checked so a mangled export is seen).
bool known_unit(const std::string& unit) {
  for (Dimension d : {Dimension::kTime, Dimension::kCycles, Dimension::kBytes, Dimension::kPercent,
                      Dimension::kCount, Dimension::kLaunchStatistic})
    if (unit_scale(unit, d)) return true;
  // Base units of metrics atomq does not read (a details page shows them by their section label).
  static const std::set<std::string> kOtherBaseUnits = {"",     "thread", "hz",      "block",    "inst",  "warp",
                                                        "SM",   "cluster", "branches", "sector", "request",
                                                        "wavefront", "register"};
  return unit.find('/') != std::string::npos || kOtherBaseUnits.count(unit) > 0;
}

// ncu writes "1,234,567.5": a comma only between groups of three digits in the integer part.
// Anything else ("1,5" with a decimal comma, "1 234") would be read wrong, so it is refused.
bool thousands_grouping_ok(const std::string& v) {
  if (v.find(' ') != std::string::npos) return false;
  const size_t first_comma = v.find(',');
  if (first_comma == std::string::npos) return true;
  const size_t end = std::min(v.find('.'), v.size());
  if (first_comma > end) return false;  // a comma in the fraction
  size_t lead = 0;
  while (lead < first_comma && (std::isdigit(static_cast<unsigned char>(v[lead])) || (lead == 0 && v[0] == '-'))) ++lead;
  if (lead != first_comma || first_comma == 0 || first_comma - (v[0] == '-' ? 1 : 0) > 3) return false;
  for (size_t i = first_comma; i < end; i += 4) {
    if (v[i] != ',' || i + 4 > end) return false;
    for (size_t j = i + 1; j < i + 4; ++j)
      if (!std::isdigit(static_cast<unsigned char>(v[j]))) return false;
  }
  return true;
}

// Decimal only: [-]digits[.digits][e[+-]digits], at least one digit before the exponent. No
// hex ("0x10", "0x1p4"), "inf", "nan" or spaces, which strtod would take.
bool is_decimal(const std::string& s) {
  size_t i = s.size() > 0 && s[0] == '-' ? 1 : 0, digits = 0;
  const auto run = [&] {
    size_t n = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++n;
    return n;
  };
  digits += run();
  if (i < s.size() && s[i] == '.') ++i, digits += run();
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (run() == 0) return false;
  }
  return i == s.size();
}

// A metric's value: a decimal number, finite, not underflowing to zero.
double parse_value(const std::string& text, const std::string& name, const std::string& source, size_t line) {
  const auto what = [&] { return "metric " + name + ": value '" + text + "'"; };
  if (!thousands_grouping_ok(text))
    fail(source, line, what() + " is not a number (a comma only as a thousands separator, no spaces)");
  std::string digits;
  for (char ch : text)
    if (ch != ',') digits += ch;
  if (!is_decimal(digits)) fail(source, line, what() + " is not a number (decimal digits only)");
  errno = 0;
  const double value = std::strtod(digits.c_str(), nullptr);
  if (!std::isfinite(value) || (errno == ERANGE && std::fabs(value) >= 1.0)) fail(source, line, what() + " is out of range");
  if (errno == ERANGE)  // 1e-400 would be read as 0 (or a denormal that lost its digits)
    fail(source, line, what() + " underflows (too small to represent)");
  return value;
}

}  // namespace ncu_detail
}  // namespace atomq::analyzer
