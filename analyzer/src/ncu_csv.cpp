#include "atomq/analyzer/ncu_csv.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_set>

#include "atomq/common/device_info.hpp"
#include "atomq/common/json_fields.hpp"
#include "ncu_csv_fields.hpp"

namespace atomq::analyzer {

namespace {

using namespace ncu_detail;

std::string chip_for_cc(const std::string& cc) {
  static const std::map<std::string, std::string> chips = {
      {"7.0", "GV100"}, {"8.0", "GA100"}, {"8.6", "GA102"}, {"8.9", "AD102"},
      {"9.0", "GH100"}, {"10.0", "GB100"}, {"12.0", "GB202"}};
  auto it = chips.find(cc);
  return it == chips.end() ? "" : it->second;
}

// A whole count in [0, limit], as an int.
int small_count(double value, int limit, const std::string& name, const std::string& source, size_t line_no) {
  if (!(value >= 0 && value <= limit) || value != std::floor(value))
    fail(source, line_no, "metric " + name + ": " + std::to_string(value) + " is not a whole number from 0 to " +
                              std::to_string(limit));
  return static_cast<int>(value);
}

constexpr size_t kMaxHeaderBytes = 65536;

constexpr const char* kRequiredColumns[] = {"ID", "Kernel Name", "Block Size", "Grid Size", "CC",
                                            "Metric Name", "Metric Unit", "Metric Value"};
constexpr size_t kLaunchColumns = 5;  // the first five: a raw page (--page raw) has these, then a column per metric

bool has_columns(const std::vector<std::string>& fields, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (std::find(fields.begin(), fields.end(), kRequiredColumns[i]) == fields.end()) return false;
  return true;
}

// The header is the first line that names every column atomq reads, in any order: a line of
// the program's own output that merely starts with "ID," is not it.
bool is_header(const std::vector<std::string>& fields) { return has_columns(fields, std::size(kRequiredColumns)); }

// A raw page's header: the launch columns and a column per metric (a name with "__").
bool is_raw_header(const std::vector<std::string>& fields) {
  return has_columns(fields, kLaunchColumns) &&
         std::any_of(fields.begin(), fields.end(), [](const std::string& f) { return f.find("__") != std::string::npos; });
}

// The columns atomq reads, by index, and how many fields a row needs.
struct Columns {
  size_t id, kernel, block, grid, cc, metric, unit, value;
  size_t fields;  // through the last named column: ncu may end the header with empty columns
  // Through the last column atomq reads: a details page (--page details) ends its metric rows
  // there, before the rule columns its rule rows fill.
  size_t needed = 0;
  // A raw page: one row per launch, a column per metric (index, name), their units on the
  // line after the header.
  bool wide = false;
  std::vector<std::pair<size_t, std::string>> metric_columns;
  std::vector<std::string> units;
};

Columns raw_header_columns(const std::vector<std::string>& header) {
  Columns c{};
  c.wide = true;
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& h = header[i];
    if (h.empty()) continue;
    c.fields = i + 1;
    if (h == "ID") c.id = i;
    else if (h == "Kernel Name") c.kernel = i;
    else if (h == "Block Size") c.block = i;
    else if (h == "Grid Size") c.grid = i;
    else if (h == "CC") c.cc = i;
    else if (h.find("__") != std::string::npos) c.metric_columns.emplace_back(i, h);
  }
  return c;
}

Columns header_columns(const std::vector<std::string>& header, const std::string& source, size_t line) {
  std::map<std::string, size_t> column;
  size_t fields = 0;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i].empty()) continue;  // an unnamed column (ncu ends some headers with two)
    fields = i + 1;
    if (!column.emplace(header[i], i).second)  // a repeated name would leave a column unread
      fail(source, line, "the header repeats the column \"" + header[i] + "\" (columns " +
                             std::to_string(column[header[i]] + 1) + " and " + std::to_string(i + 1) + ")");
  }
  Columns c{column["ID"],   column["Kernel Name"], column["Block Size"], column["Grid Size"], column["CC"],
            column["Metric Name"], column["Metric Unit"], column["Metric Value"], fields};
  c.needed = 1 + std::max({c.id, c.kernel, c.block, c.grid, c.cc, c.metric, c.unit, c.value});
  return c;
}

// Skips what ncu prints before the table ("==PROF==" and the program's own output), line by line.
Columns find_header(CsvRecords& records, const std::string& source) {
  std::string line;
  std::vector<std::string> candidate;  // the first line that starts like a header, to say what it lacks
  size_t candidate_line = 0, last_line = 0;
  while (records.next_line(line)) {
    last_line = records.first_line();
    // A header is short (ncu's is about 200 bytes): a longer line, or one that does not start
    // with "ID" or name "Metric Value", is not split into fields.
    // (A raw page's header names every metric: as long as a record may be when it starts with "ID".)
    const bool id_first = line.rfind("ID", 0) == 0 || line.rfind("\"ID\"", 0) == 0;
    if ((line.size() > kMaxHeaderBytes && !id_first) || (!id_first && line.find("Metric Value") == std::string::npos))
      continue;
    bool ok = true;
    const auto fields = split_csv_record(line, &ok);
    if (ok && candidate.empty() && !fields.empty() && fields[0] == "ID") candidate = fields, candidate_line = last_line;
    if (ok && is_header(fields)) return header_columns(fields, source, last_line);
    if (ok && is_raw_header(fields)) return raw_header_columns(fields);
  }
  if (!candidate.empty())
    for (const char* name : kRequiredColumns)
      if (std::find(candidate.begin(), candidate.end(), name) == candidate.end())
        fail(source, candidate_line, std::string("header lacks the column \"") + name + "\"");
  fail(source, last_line, "no ncu CSV header (a line naming \"ID\", \"Kernel Name\", ..., \"Metric Value\", or a "
                          "raw page's metric columns) found; export with `ncu --csv` (--page raw or details)");
}

// The launch being read: its rows are contiguous in an export.
struct Launch {
  std::string id, block, grid, cc;  // as its first row gives them
  size_t first_line = 0;
  bool kept = false;
  model::KernelProfile profile;
  std::map<std::string, double> values;  // the read metrics so far, to see one given twice
};

// The profile a result ID's first row starts: its kernel, launch and device.
model::KernelProfile new_profile(const std::vector<std::string>& f, const Columns& c, const std::string& source,
                                 size_t line_no) {
  model::KernelProfile p;
  p.kernel_name = f[c.kernel];
  p.source = model::CounterSource::kNcuCsv;
  p.source_detail = source + " result ID " + f[c.id];
  long long grid[3], block[3];
  // CUDA's limits, as the kernel-profile reader checks them.
  if (!parse_dim3(f[c.grid], grid) || grid[0] > 2147483647LL || grid[1] > 65535 || grid[2] > 65535)
    fail(source, line_no, "bad \"Grid Size\" '" + f[c.grid] + "'");
  if (!parse_dim3(f[c.block], block) || block[0] > 1024 || block[1] > 1024 || block[2] > 64)
    fail(source, line_no, "bad \"Block Size\" '" + f[c.block] + "'");
  p.launch.grid = {grid[0], grid[1], grid[2]};
  p.launch.block = {static_cast<int>(block[0]), static_cast<int>(block[1]), static_cast<int>(block[2])};
  int major = 0, minor = 0;  // unknown (0.0, no chip) unless "<major>.<minor>"
  if (parse_compute_capability(f[c.cc], major, minor)) {
    p.device.compute_capability_major = major;
    p.device.compute_capability_minor = minor;
  }
  p.device.chip = chip_for_cc(f[c.cc]);
  return p;
}

// Reads the rows of an export after its header into launches, one launch held at a time.
class LaunchReader {
 public:
  LaunchReader(const std::string& source, const Columns& c, const NcuLaunchSelector& keep, const NcuCsvLimits& limits)
      : source_(source), c_(c), keep_(keep), limits_(limits) {}

  void row(const std::vector<std::string>& f, size_t line);
  NcuCsvImport finish(size_t last_line);

 private:
  void start_launch(const std::vector<std::string>& f, size_t line);
  void end_launch();
  void check_same_launch(const std::vector<std::string>& f, size_t line) const;
  void metric(const std::string& name, const std::string& unit, const std::string& text, size_t line,
              bool check_unread);
  void wide_row(const std::vector<std::string>& f, size_t line);

  const std::string& source_;
  Columns c_;
  const NcuLaunchSelector& keep_;
  NcuCsvLimits limits_;
  std::optional<Launch> launch_;
  std::unordered_set<std::string> seen_ids_;
  size_t kept_text_bytes_ = 0;
  NcuCsvImport result_;
};

void LaunchReader::row(const std::vector<std::string>& f, size_t line) {
  if (f.size() == 1 && (f[0].empty() || f[0].rfind("==", 0) == 0)) return;  // blank, or ncu's "==WARNING==" etc.
  const size_t needed = c_.wide ? c_.fields : c_.needed;
  if (f.size() < needed)
    fail(source_, line, "expected " + std::to_string(needed) + " fields, got " + std::to_string(f.size()) +
                            " (truncated file?)");
  if (c_.wide) return wide_row(f, line);
  if (f[c_.metric].empty() && f[c_.value].empty() && f.size() > needed) return;  // a details page's rule row
  if ((f[c_.id] == "ID" || f[c_.metric] == "Metric Name") && is_header(f))
    fail(source_, line, "a second ncu header (two exports in one file?): analyze each export on its own");
  const bool new_launch = !launch_ || launch_->id != f[c_.id];
  // They become JSON strings. The ID and kernel name of a launch's other rows equal its first's.
  for (const auto& [name, index] : {std::pair<const char*, size_t>{"ID", c_.id}, {"Kernel Name", c_.kernel},
                                    {"Metric Name", c_.metric}})
    if ((new_launch || index == c_.metric) && !is_valid_utf8(f[index]))
      fail(source_, line, std::string("column \"") + name + "\" is not valid UTF-8 (atomq reads UTF-8 exports)");
  if (new_launch) {
    end_launch();
    start_launch(f, line);
  } else {
    check_same_launch(f, line);
  }
  metric(f[c_.metric], f[c_.unit], f[c_.value], line, true);
}

// A raw page's row: one launch, its metrics in their columns (only those atomq reads: a raw
// page also holds text, such as the device's name).
void LaunchReader::wide_row(const std::vector<std::string>& f, size_t line) {
  for (const auto& [name, index] : {std::pair<const char*, size_t>{"ID", c_.id}, {"Kernel Name", c_.kernel}})
    if (!is_valid_utf8(f[index]))
      fail(source_, line, std::string("column \"") + name + "\" is not valid UTF-8 (atomq reads UTF-8 exports)");
  end_launch();
  start_launch(f, line);
  for (const auto& [index, name] : c_.metric_columns)
    if (read_metric_dimension(name)) metric(name, c_.units[index], f[index], line, false);
}

void LaunchReader::start_launch(const std::vector<std::string>& f, size_t line) {
  const std::string& id = f[c_.id];
  if (!seen_ids_.insert(id).second)  // its rows ended before: a second export, or two launches under one ID
    fail(source_, line, "result ID " + id + " appears again after other launches (a second export appended, or "
                        "two launches under one ID): column \"ID\"");
  if (seen_ids_.size() > limits_.max_launches_seen)
    fail(source_, line, "more than " + std::to_string(limits_.max_launches_seen) + " launches in the export "
                        "(atomq's limit): column \"ID\"");
  launch_.emplace();
  launch_->id = id, launch_->block = f[c_.block], launch_->grid = f[c_.grid], launch_->cc = f[c_.cc];
  launch_->first_line = line;
  launch_->profile = new_profile(f, c_, source_, line);
  ++result_.launches_seen;
  launch_->kept = !keep_ || keep_(launch_->profile);
  if (!launch_->kept) return;
  kept_text_bytes_ += id.size() + launch_->profile.kernel_name.size();
  if (result_.profiles.size() >= limits_.max_launches_kept)
    fail(source_, line, "more than " + std::to_string(limits_.max_launches_kept) + " launches to analyze (atomq's "
                        "limit: its run document must stay within the 256 MiB that report reads); select fewer "
                        "with -k, -s or -c");
  if (kept_text_bytes_ > limits_.max_kept_text_bytes)
    fail(source_, line, "the kernel names of the launches to analyze exceed " + mib(limits_.max_kept_text_bytes) +
                            " (atomq's limit); select fewer with -k, -s or -c: column \"Kernel Name\"");
}

// Every row of a launch names the same kernel, grid, block and compute capability.
void LaunchReader::check_same_launch(const std::vector<std::string>& f, size_t line) const {
  const Launch& l = *launch_;
  const auto differs = [&](const char* column, const std::string& first, const std::string& now) {
    fail(source_, line, "result ID " + l.id + ": column \"" + column + "\" is '" + now + "', but '" + first +
                            "' on line " + std::to_string(l.first_line) + " (rows of one launch disagree)");
  };
  if (f[c_.kernel] != l.profile.kernel_name)  // never merge two kernels' counters
    fail(source_, line, "result ID " + l.id + " names two kernels: \"" + l.profile.kernel_name + "\" and \"" +
                            f[c_.kernel] + "\": column \"Kernel Name\"");
  if (f[c_.grid] != l.grid) differs("Grid Size", l.grid, f[c_.grid]);
  if (f[c_.block] != l.block) differs("Block Size", l.block, f[c_.block]);
  if (f[c_.cc] != l.cc) differs("CC", l.cc, f[c_.cc]);
}

// One metric of the launch being read; `check_unread`: a metric atomq does not read still has
// to have a number and a known unit (the long form's rows, so a mangled export is seen).
void LaunchReader::metric(const std::string& name, const std::string& unit, const std::string& text, size_t line,
                          bool check_unread) {
  if (text.empty() || text == "n/a") return;  // ncu could not collect it
  if (!check_unread && !read_metric_dimension(name)) return;
  const auto dimension = read_metric_dimension(name);
  if (!dimension) {  // not read: checked (a scaled unit says the export is not in base units), not kept
    if (!known_unit(unit))
      fail(source_, line, "metric " + name + ": unknown unit '" + unit + "' (export with --print-units base)");
    // A value that starts like a number must be one; text (a device's name, a details page's
    // "PolicySpread") is an attribute atomq does not read.
    const char first = text[0];
    if (std::isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' || first == '.')
      parse_value(text, name, source_, line);
    return;
  }
  double value = parse_value(text, name, source_, line);
  const auto scale = unit_scale(unit, *dimension);
  if (!scale)
    fail(source_, line, "metric " + name + ": unit '" + unit + "'" +
                            (unit.find('/') != std::string::npos ? " is a rate; the metric is " : " is not ") +
                            dimension_name(*dimension) + ": column \"Metric Unit\"");
  if (value < 0) fail(source_, line, "metric " + name + ": value '" + text + "' is negative: column \"Metric Value\"");
  value *= *scale;
  if (!std::isfinite(value)) fail(source_, line, "metric " + name + ": value '" + text + " " + unit + "' is out of range");
  const auto [it, inserted] = launch_->values.emplace(name, value);
  if (!inserted && it->second != value)
    fail(source_, line, "result ID " + launch_->id + ": metric " + name + " given twice with different values: column "
                        "\"Metric Value\"");
  model::KernelProfile& p = launch_->profile;
  // Launch statistics ncu adds itself; range-checked before they narrow to int.
  if (name == "launch__registers_per_thread") p.launch.registers_per_thread = small_count(value, 255, name, source_, line);
  else if (name == "launch__occupancy_limit_blocks") p.launch.max_active_blocks_per_sm = small_count(value, 2048, name, source_, line);
  else if (name == "device__attribute_multiprocessor_count") p.device.sm_count = small_count(value, 1024, name, source_, line);
  else if (launch_->kept) p.counters[name] = value;
}

// What analyze writes, report must read back: each launch kept is checked as the profile
// reader checks it.
void LaunchReader::end_launch() {
  if (!launch_ || !launch_->kept) return launch_.reset();
  try {
    model::validate_kernel_profile(launch_->profile, launch_->profile.source_detail);
  } catch (const model::ProfileError& e) {
    throw NcuCsvError(std::string(e.what()) + " (line " + std::to_string(launch_->first_line) + ")");
  }
  result_.profiles.push_back(std::move(launch_->profile));
  launch_.reset();
}

NcuCsvImport LaunchReader::finish(size_t last_line) {
  end_launch();
  if (result_.launches_seen == 0) fail(source_, last_line, "the export holds no kernel results");
  return std::move(result_);
}

}  // namespace

NcuCsvImport read_ncu_csv(std::istream& in, const std::string& source, const NcuLaunchSelector& keep,
                          const NcuCsvLimits& limits) {
  CsvRecords records(in, source, limits.max_record_bytes);
  Columns columns = find_header(records, source);
  if (columns.wide) {  // a raw page: the units, a field per column, on the line after the header
    if (!records.next_record(columns.units) || columns.units.size() < columns.fields)
      fail(source, records.first_line(), "the raw page's units line (after its header) is missing or short: export "
                                         "with --page raw --print-units base");
  }
  LaunchReader launches(source, columns, keep, limits);
  std::vector<std::string> fields;
  size_t last_line = records.first_line();
  while (records.next_record(fields)) {
    last_line = records.first_line();
    launches.row(fields, last_line);
  }
  return launches.finish(last_line);
}

NcuCsvImport read_ncu_csv_file(const std::string& path, const NcuLaunchSelector& keep, const NcuCsvLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NcuCsvError(path + ": cannot open the ncu CSV export");
  return read_ncu_csv(in, path, keep, limits);
}

std::vector<model::KernelProfile> parse_ncu_csv(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  return read_ncu_csv(in, source).profiles;
}

std::vector<model::KernelProfile> load_ncu_csv(const std::string& path) { return read_ncu_csv_file(path).profiles; }

}  // namespace atomq::analyzer
