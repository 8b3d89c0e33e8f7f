#include "atomq/analyzer/ncu_csv.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "atomq/analyzer/metric_list.hpp"
#include "atomq/common/json_fields.hpp"

namespace atomq::analyzer {

std::vector<std::string> split_csv_record(const std::string& line, bool* ok) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  *ok = true;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.push_back(field);
      field.clear();
    } else if (ch != '\r') {
      field += ch;
    }
  }
  if (quoted) *ok = false;  // unterminated quote: a truncated file
  fields.push_back(field);
  return fields;
}

namespace {

[[noreturn]] void fail(const std::string& source, size_t line, const std::string& what) {
  throw NcuCsvError(source + ":" + std::to_string(line) + ": " + what);
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

// ncu scales units unless --print-units base is given; undo the common prefixes.
bool unit_scale(const std::string& unit, double* scale) {
  static const std::map<std::string, double> prefixes = {
      {"", 1.0}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};
  static const std::map<std::string, double> times = {
      {"nsecond", 1.0}, {"usecond", 1e3}, {"msecond", 1e6}, {"second", 1e9},
      {"ns", 1.0},      {"us", 1e3},      {"ms", 1e6},      {"s", 1e9}};
  if (auto t = times.find(unit); t != times.end()) {
    *scale = t->second;
    return true;
  }
  for (const char* base : {"byte", "cycle", "inst", "request", "warp", "sector", "wavefront"}) {
    const std::string b(base);
    if (unit.size() >= b.size() && unit.compare(unit.size() - b.size(), b.size(), b) == 0) {
      auto p = prefixes.find(unit.substr(0, unit.size() - b.size()));
      if (p == prefixes.end()) return false;
      *scale = p->second;
      return true;
    }
  }
  *scale = 1.0;  // "%", "" and other dimensionless units
  return unit == "%" || unit.empty() || unit.find('/') != std::string::npos ||
         unit == "block" || unit == "register/thread" || unit == "thread";
}

bool is_atomq_metric(const std::string& name) {
  for (const MetricSpec& spec : atomq_metrics())
    if (spec.name == name) return true;
  return false;
}

std::string chip_for_cc(const std::string& cc) {
  static const std::map<std::string, std::string> chips = {
      {"7.0", "GV100"}, {"8.0", "GA100"}, {"8.6", "GA102"}, {"8.9", "AD102"},
      {"9.0", "GH100"}, {"10.0", "GB100"}, {"12.0", "GB202"}};
  auto it = chips.find(cc);
  return it == chips.end() ? "" : it->second;
}

}  // namespace

namespace {

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

// A whole count in [0, limit], as an int.
int small_count(double value, int limit, const std::string& name, const std::string& source, size_t line_no) {
  if (!(value >= 0 && value <= limit) || value != std::floor(value))
    fail(source, line_no, "metric " + name + ": " + std::to_string(value) + " is not a whole number from 0 to " +
                              std::to_string(limit));
  return static_cast<int>(value);
}

// The profile a result ID's first row starts: its kernel, launch and device.
model::KernelProfile new_profile(const std::vector<std::string>& f, std::map<std::string, size_t>& column,
                                 const std::string& source, size_t line_no, const std::string& id) {
  model::KernelProfile p;
  p.kernel_name = f[column["Kernel Name"]];
  p.source = model::CounterSource::kNcuCsv;
  p.source_detail = source + " result ID " + id;
  long long grid[3], block[3];
  // CUDA's limits, as the kernel-profile reader checks them.
  if (!parse_dim3(f[column["Grid Size"]], grid) || grid[0] > 2147483647LL || grid[1] > 65535 || grid[2] > 65535)
    fail(source, line_no, "bad \"Grid Size\" '" + f[column["Grid Size"]] + "'");
  if (!parse_dim3(f[column["Block Size"]], block) || block[0] > 1024 || block[1] > 1024 || block[2] > 64)
    fail(source, line_no, "bad \"Block Size\" '" + f[column["Block Size"]] + "'");
  p.launch.grid = {grid[0], grid[1], grid[2]};
  p.launch.block = {static_cast<int>(block[0]), static_cast<int>(block[1]), static_cast<int>(block[2])};
  const std::string cc = f[column["CC"]];
  int major = 0, minor = 0;  // unknown (0.0, no chip) unless "<major>.<minor>"
  if (parse_compute_capability(cc, major, minor)) {
    p.device.compute_capability_major = major;
    p.device.compute_capability_minor = minor;
  }
  p.device.chip = chip_for_cc(cc);
  return p;
}

}  // namespace

namespace {

constexpr const char* kRequiredColumns[] = {"ID", "Kernel Name", "Block Size", "Grid Size", "CC",
                                            "Metric Name", "Metric Unit", "Metric Value"};

// The header is the first line that names every column atomq reads, in any order: a line of
// the program's own output that merely starts with "ID," is not it.
bool is_header(const std::vector<std::string>& fields) {
  for (const char* name : kRequiredColumns)
    if (std::find(fields.begin(), fields.end(), name) == fields.end()) return false;
  return true;
}

// One CSV record: a quoted field may hold line breaks (RFC 4180), so a record can span lines.
// False at the end of the input; *ok false when it ends inside a quote.
bool next_record(std::istream& in, size_t& line_no, std::vector<std::string>& fields, bool* ok) {
  std::string line, record;
  if (!std::getline(in, line)) return false;
  ++line_no;
  record = line;
  fields = split_csv_record(record, ok);
  while (!*ok && std::getline(in, line)) {
    ++line_no;
    record += "\n" + line;
    fields = split_csv_record(record, ok);
  }
  return true;
}

}  // namespace

std::vector<model::KernelProfile> parse_ncu_csv(const std::string& text, const std::string& source) {
  // A UTF-8 byte order mark (spreadsheet tools write one) is not part of the first field.
  std::istringstream in(text.rfind("\xEF\xBB\xBF", 0) == 0 ? text.substr(3) : text);
  std::string line;
  size_t line_no = 0;
  std::map<std::string, size_t> column;
  size_t header_fields = 0;
  // Skip the lines ncu prints before the table ("==PROF==" and the program's own output).
  std::vector<std::string> candidate;  // the first line that starts like a header, to say what it lacks
  size_t candidate_line = 0;
  while (std::getline(in, line)) {
    ++line_no;
    bool ok = true;
    const auto header = split_csv_record(line, &ok);
    if (ok && candidate.empty() && !header.empty() && header[0] == "ID") candidate = header, candidate_line = line_no;
    if (!ok || !is_header(header)) continue;
    for (size_t i = 0; i < header.size(); ++i)
      if (!column.emplace(header[i], i).second)  // a repeated name would leave a column unread
        fail(source, line_no, "the header repeats the column \"" + header[i] + "\" (columns " +
                                  std::to_string(column[header[i]] + 1) + " and " + std::to_string(i + 1) + ")");
    header_fields = header.size();
    break;
  }
  if (column.empty() && !candidate.empty())
    for (const char* name : kRequiredColumns)
      if (std::find(candidate.begin(), candidate.end(), name) == candidate.end())
        fail(source, candidate_line, std::string("header lacks the column \"") + name + "\"");
  if (column.empty())
    fail(source, line_no, "no ncu CSV header (a line naming \"ID\", \"Kernel Name\", ..., \"Metric Value\") found; "
                          "export with `ncu --csv`");

  std::vector<model::KernelProfile> profiles;
  std::map<std::string, size_t> by_id;
  std::vector<std::string> f;
  bool ok = true;
  while (next_record(in, line_no, f, &ok)) {
    if (!ok) fail(source, line_no, "unterminated quote (truncated file?)");
    if (f.size() == 1 && (f[0].empty() || f[0].rfind("==", 0) == 0)) continue;  // blank, or ncu's "==WARNING==" etc.
    if (f.size() < header_fields)
      fail(source, line_no, "expected " + std::to_string(header_fields) + " fields, got " +
                                std::to_string(f.size()) + " (truncated file?)");
    for (const char* text_column : {"ID", "Kernel Name", "Metric Name"})  // they become JSON strings
      if (!is_valid_utf8(f[column[text_column]]))
        fail(source, line_no, std::string("column \"") + text_column + "\" is not valid UTF-8 (atomq reads UTF-8 exports)");
    const std::string& id = f[column["ID"]];
    auto [it, inserted] = by_id.emplace(id, profiles.size());
    if (inserted) profiles.push_back(new_profile(f, column, source, line_no, id));
    model::KernelProfile& p = profiles[it->second];
    if (!inserted && p.kernel_name != f[column["Kernel Name"]])  // never merge two kernels' counters
      fail(source, line_no, "result ID " + id + " names two kernels: \"" + p.kernel_name + "\" and \"" +
                                f[column["Kernel Name"]] + "\"");
    const std::string& name = f[column["Metric Name"]];
    const std::string& unit = f[column["Metric Unit"]];
    std::string value_text = f[column["Metric Value"]];
    if (value_text.empty() || value_text == "n/a") continue;  // ncu could not collect it
    if (!thousands_grouping_ok(value_text))
      fail(source, line_no, "metric " + name + ": value '" + value_text +
                                "' is not a number (a comma only as a thousands separator, no spaces)");
    std::string digits;
    for (char ch : value_text)
      if (ch != ',') digits += ch;
    char* end = nullptr;
    const double value = std::strtod(digits.c_str(), &end);
    if (end == digits.c_str() || *end != '\0' || !std::isfinite(value))
      fail(source, line_no, "metric " + name + ": value '" + value_text + "' is not a number");
    double scale = 1.0;
    // The counters atomq reads are counts, cycles, bytes or times, never rates.
    if (unit.find('/') != std::string::npos && is_atomq_metric(name))
      fail(source, line_no, "metric " + name + ": unit '" + unit + "' is a rate; the metric is a count");
    if (!unit_scale(unit, &scale))
      fail(source, line_no, "metric " + name + ": unknown unit '" + unit + "' (export with --print-units base)");
    // Launch statistics ncu adds itself; range-checked before they narrow to int.
    if (name == "launch__registers_per_thread") p.launch.registers_per_thread = small_count(value, 255, name, source, line_no);
    else if (name == "launch__occupancy_limit_blocks") p.launch.max_active_blocks_per_sm = small_count(value, 2048, name, source, line_no);
    else if (name == "device__attribute_multiprocessor_count") p.device.sm_count = small_count(value, 1024, name, source, line_no);
    // A name without a rollup (launch__*, device__*) is a launch statistic, never a counter.
    if (model::is_counter_name(name)) p.counters[name] = value * scale;
  }
  if (profiles.empty()) fail(source, line_no, "the export holds no kernel results");
  for (const auto& p : profiles) {  // what analyze writes, report must read back
    try {
      model::validate_kernel_profile(p, p.source_detail);
    } catch (const model::ProfileError& e) {
      throw NcuCsvError(e.what());
    }
  }
  return profiles;
}

std::vector<model::KernelProfile> load_ncu_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NcuCsvError(path + ": cannot open the ncu CSV export");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_ncu_csv(ss.str(), path);
}

}  // namespace atomq::analyzer
