// The service table's reader: schema, version, axes, completeness of the grid, finite
// positive values within physical ranges. Every error names the file and the field (atomq::JsonFields).
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <type_traits>

#include "atomq/calibration/service_table.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/common/statistics.hpp"
#include "table_reader_detail.hpp"

namespace atomq::calibration {

namespace detail {

using nlohmann::json;

// A positive finite number ("finite positive values").
double positive(const Fields& r, const json& j, const std::string& path, const char* key) {
  const double v = r.number(j, path, key);
  if (!(v > 0)) r.fail(json_path(path, key), "must be positive");
  return v;
}

int positive_int(const Fields& r, const json& j, const std::string& path, const char* key) {
  return static_cast<int>(r.integer(j, path, key, 1, std::numeric_limits<int>::max()));
}

}  // namespace detail

namespace {

using nlohmann::json;
using detail::Fields;
using detail::positive;
using detail::positive_int;

// Physical bounds, far outside any GPU measured but refusing what no GPU can measure (a service
// time of 1e-300 or 1e300 cycles, an SM clock of 0), which the model would compute with.
constexpr double kMinCycles = 1e-2, kMaxCycles = 1e6;      // a service time or latency, cycles
constexpr double kMinClockMhz = 1, kMaxClockMhz = 1e5;     // a measured clock, MHz

// A measured value within its physical range, else an error naming the field, the value and the range.
double physical(const Fields& r, const json& j, const std::string& path, const std::string& key, double lo,
                double hi, const char* unit) {
  const double v = r.number(j, path, key);
  if (lo > 0 && !(v > 0)) r.fail(json_path(path, key), "must be positive");
  if (!(v >= lo && v <= hi)) {
    char text[160];
    std::snprintf(text, sizeof text, "%g %s is physically impossible: expected %g to %g %s", v, unit, lo, hi, unit);
    r.fail(json_path(path, key), text);
  }
  return v;
}


// The compact CUDA version text "13.0" back to the API number 13000.
int cuda_version_number(const Fields& r, const json& j, const std::string& path, const char* key) {
  int major = 0, minor = 0;
  const std::string text = r.str(j, path, key);
  // The API number keeps two digits of minor (13.0 is 13000): a longer one would not come back.
  if (!parse_compute_capability(text, major, minor) || major > 1000 || minor > 99)
    r.fail(json_path(path, key), "expected 'major.minor' (minor below 100), got '" + text + "'");
  return major * 1000 + minor * 10;
}

DeviceInfo read_device(const Fields& r, const json& j, const std::string& path) {
  DeviceInfo d;
  d.name = r.str(j, path, "gpu_name");
  d.chip = r.str(j, path, "chip");
  const std::string cc = r.str(j, path, "compute_capability");
  if (!parse_compute_capability(cc, d.compute_capability_major, d.compute_capability_minor))
    r.fail(path + ".compute_capability", "expected 'major.minor', got '" + cc + "'");
  d.sm_count = positive_int(r, j, path, "sm_count");
  d.max_warps_per_sm = positive_int(r, j, path, "max_warps_per_sm");
  d.clock_khz = static_cast<int>(r.integer(j, path, "nominal_clock_mhz", 0, 1000000)) * 1000;
  d.driver_version = cuda_version_number(r, j, path, "driver_version");
  d.runtime_version = cuda_version_number(r, j, path, "cuda_runtime_version");
  // Added with per-device tables: optional.
  if (j.contains("device_ordinal")) d.ordinal = static_cast<int>(r.integer(j, path, "device_ordinal", 0, 1 << 20));
  d.uuid = r.optional_str(j, path, "device_uuid");
  if (!d.uuid.empty() && !is_device_uuid_text(d.uuid))
    r.fail(path + ".device_uuid", "expected 'GPU-' and 32 hex digits in 8-4-4-4-12 groups, got '" + d.uuid + "'");
  return d;
}

Provenance read_provenance(const Fields& r, const json& doc) {
  const std::string path = "provenance";
  const json& j = r.member(doc, "", "provenance");
  Provenance p;
  p.device = read_device(r, j, path);
  p.sm_clock_mhz_start = physical(r, j, path, "sm_clock_mhz_start", kMinClockMhz, kMaxClockMhz, "MHz");
  p.sm_clock_mhz_end = physical(r, j, path, "sm_clock_mhz_end", kMinClockMhz, kMaxClockMhz, "MHz");
  // Added after the first tables were written: optional, "unknown" when absent.
  p.driver_release = r.optional_str(j, path, "driver_release", "unknown");
  p.created_utc = r.str(j, path, "created_utc");
  p.atomq_version = r.str(j, path, "atomq_version");
  p.atomq_commit = r.str(j, path, "atomq_commit");
  p.grid_name = r.str(j, path, "grid");
  p.repeats = positive_int(r, j, path, "repeats");
  p.wall_seconds = r.number(j, path, "wall_seconds");
  return p;
}

// One axis: every element read by `element`; numbers strictly increasing, names distinct.
template <typename T, typename ReadElement>
std::vector<T> read_axis(const Fields& r, const json& axes, const std::string& axes_path,
                         const char* key, ReadElement element) {
  const std::string path = json_path(axes_path, key);
  const json& values = r.array(axes, axes_path, key);
  std::vector<T> out;
  for (size_t i = 0; i < values.size(); ++i) {
    const T v = element(values[i], json_path(path, i));
    if constexpr (std::is_arithmetic_v<T>) {
      if (!out.empty() && !(out.back() < v))
        r.fail(json_path(path, i), "axis values must be strictly increasing");
    } else if (std::find(out.begin(), out.end(), v) != out.end()) {
      r.fail(json_path(path, i), "duplicate");
    }
    out.push_back(v);
  }
  return out;
}

Pattern read_pattern(const Fields& r, const json& v, const std::string& field) {
  const auto parsed = v.is_string() ? pattern_from_string(v.get<std::string>()) : std::nullopt;
  if (!parsed)  // the value is named, not dumped: it may be nested arbitrarily deep
    r.fail(field, "unknown address pattern " + (v.is_string() ? "\"" + v.get<std::string>() + "\"" : std::string("(a ") + v.type_name() + ")") +
                      " (expected \"distinct\", \"conflictK\" or \"same\")");
  return *parsed;
}

Axes read_axes(const Fields& r, const json& doc) {
  const json& j = r.member(doc, "", "axes");
  Axes a;
  auto int_in = [&](long long hi) {
    return [&r, hi](const json& v, const std::string& f) {
      if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > hi)
        r.fail(f, "expected an integer in 1.." + std::to_string(hi));
      return v.get<int>();
    };
  };
  a.n = read_axis<int>(r, j, "axes", "n", int_in(1024));
  a.e = read_axis<int>(r, j, "axes", "e", int_in(32));
  a.c = read_axis<double>(r, j, "axes", "c", [&](const json& v, const std::string& f) {
    if (!v.is_number() || !(v.get<double>() >= 0.0) || v.get<double>() > 1.0)
      r.fail(f, "expected a number in 0..1");
    return v.get<double>();
  });
  a.variants = read_axis<OpVariant>(r, j, "axes", "variants", [&](const json& v, const std::string& f) {
    return r.enumerated<OpVariant>(v, f);
  });
  a.patterns = read_axis<Pattern>(r, j, "axes", "patterns", [&](const json& v, const std::string& f) {
    return read_pattern(r, v, f);
  });
  return a;
}

// Index of `value` on `axis`, or a failure naming the cell's field.
template <typename T, typename Same>
int axis_index(const Fields& r, const std::vector<T>& axis, const T& value, Same same,
               const std::string& field, const std::string& shown, const char* axis_path) {
  for (size_t i = 0; i < axis.size(); ++i)
    if (same(axis[i], value)) return static_cast<int>(i);
  r.fail(field, "value " + shown + " is not on " + axis_path);
}

// A measured value with its smallest and largest repeat: "<key>", "<key>_min", "<key>_max",
// with 0 < min <= value <= max.
SampleSummary read_repeats(const Fields& r, const json& j, const std::string& path,
                           const std::string& key, const char* what) {
  SampleSummary s;
  if (!(r.number(j, path, key) > 0)) r.fail(json_path(path, key), std::string(what) + " must be positive");
  s.median = physical(r, j, path, key, kMinCycles, kMaxCycles, "cycles");
  s.min = physical(r, j, path, key + "_min", kMinCycles, kMaxCycles, "cycles");
  s.max = physical(r, j, path, key + "_max", kMinCycles, kMaxCycles, "cycles");
  if (!(s.min > 0 && s.min <= s.median && s.median <= s.max))
    r.fail(json_path(path, key + "_min"),
           "expected 0 < " + key + "_min <= " + key + " <= " + key + "_max");
  return s;
}

Cell read_cell(const Fields& r, const json& j, const std::string& path) {
  Cell c;
  c.n = static_cast<int>(r.integer(j, path, "n", 1, 1024));
  c.e = static_cast<int>(r.integer(j, path, "e", 1, 32));
  c.c = r.number(j, path, "c");
  c.variant = r.enumerated<OpVariant>(j, path, "variant");
  c.pattern = read_pattern(r, r.member(j, path, "pattern"), path + ".pattern");
  const SampleSummary s = read_repeats(r, j, path, "s", "service time");
  c.s = s.median;
  c.s_min = s.min;
  c.s_max = s.max;
  c.spread = r.number(j, path, "spread");
  c.sm_spread = r.number(j, path, "sm_spread");
  c.atomics_per_warp = r.integer(j, path, "atomics_per_warp");
  if (c.spread < 0 || c.sm_spread < 0) r.fail(path + ".spread", "must not be negative");
  if (c.atomics_per_warp <= 0) r.fail(path + ".atomics_per_warp", "must be positive");
  return c;
}

std::vector<Cell> read_cells(const Fields& r, const json& doc, const Axes& axes) {
  using CellKey = std::tuple<int, int, int, int, int>;  // axis indices of n, e, c, variant, pattern
  const auto equal = [](const auto& a, const auto& b) { return a == b; };
  std::set<CellKey> seen;
  std::vector<Cell> cells;
  const json& list = r.array(doc, "", "cells");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("cells", i);
    const Cell c = read_cell(r, list[i], path);
    const CellKey key{
        axis_index(r, axes.n, c.n, equal, path + ".n", std::to_string(c.n), "axes.n"),
        axis_index(r, axes.e, c.e, equal, path + ".e", std::to_string(c.e), "axes.e"),
        axis_index(r, axes.c, c.c, same_cas_share, path + ".c", std::to_string(c.c), "axes.c"),
        axis_index(r, axes.variants, c.variant, equal, path + ".variant", enum_name(c.variant), "axes.variants"),
        axis_index(r, axes.patterns, c.pattern, equal, path + ".pattern", to_string(c.pattern), "axes.patterns")};
    if (!seen.insert(key).second) r.fail(path, "duplicate grid cell");
    cells.push_back(c);
  }
  const size_t expected = axes.n.size() * axes.e.size() * axes.c.size() * axes.variants.size() *
                          axes.patterns.size();
  if (cells.size() != expected)
    r.fail("cells", "grid incomplete: " + std::to_string(cells.size()) + " cells, axes need " +
                        std::to_string(expected) + " (truncated file?)");
  return cells;
}

std::vector<ControlCell> read_controls(const Fields& r, const json& doc) {
  std::vector<ControlCell> out;
  const json& list = r.array(doc, "", "controls");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("controls", i);
    ControlCell c;
    c.n = static_cast<int>(r.integer(list[i], path, "n", 1, 1024));
    c.e = static_cast<int>(r.integer(list[i], path, "e", 1, 32));
    c.cycles_per_slot = r.number(list[i], path, "cycles_per_slot");
    if (c.cycles_per_slot < 0) r.fail(path + ".cycles_per_slot", "must not be negative");
    if (c.cycles_per_slot > kMaxCycles) physical(r, list[i], path, "cycles_per_slot", 0, kMaxCycles, "cycles");
    out.push_back(c);
  }
  return out;
}

void read_latencies(const Fields& r, const json& doc, ServiceTable& t) {
  const json& list = r.array(doc, "", "latencies");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("latencies", i);
    const json& j = list[i];
    LatencyCell c;
    c.op = r.enumerated<LatencyOp>(j, path, "op");
    c.pattern = read_pattern(r, r.member(j, path, "pattern"), path + ".pattern");
    c.e = static_cast<int>(r.integer(j, path, "e", 1, 32));
    const SampleSummary cycles = read_repeats(r, j, path, "cycles", "latency");
    c.cycles = cycles.median;
    c.cycles_min = cycles.min;
    c.cycles_max = cycles.max;
    if (t.find_latency(c.op, c.pattern, c.e) != nullptr) r.fail(path, "duplicate latency cell");
    t.latencies.push_back(c);
  }
}


L2Cell read_l2_cell(const Fields& r, const json& j, const std::string& path) {
  L2Cell c;
  c.op = r.enumerated<GlobalAtomicOp>(j, path, "op");
  c.spread = r.enumerated<AddressSpread>(j, path, "spread");
  c.warps_per_sm = positive_int(r, j, path, "warps_per_sm");
  c.addresses = positive_int(r, j, path, "addresses");
  c.requests_per_instruction = positive(r, j, path, "requests_per_instruction");
  c.hottest_slice_share = r.number(j, path, "hottest_slice_share", 0.0, 1.0);
  if (!(c.hottest_slice_share > 0)) r.fail(path + ".hottest_slice_share", "must be positive");
  c.cycles_per_request = physical(r, j, path, "cycles_per_request", kMinCycles, kMaxCycles, "cycles");
  c.cycles_min = physical(r, j, path, "cycles_min", kMinCycles, kMaxCycles, "cycles");
  c.cycles_max = physical(r, j, path, "cycles_max", kMinCycles, kMaxCycles, "cycles");
  if (!(c.cycles_min <= c.cycles_per_request && c.cycles_per_request <= c.cycles_max))
    r.fail(path + ".cycles_min", "expected cycles_min <= cycles_per_request <= cycles_max");
  c.repeat_spread = r.number(j, path, "repeat_spread", 0.0);
  c.busy_fraction = r.number(j, path, "busy_fraction", 0.0);
  c.gpu_requests_per_cycle = positive(r, j, path, "gpu_requests_per_cycle");
  // Tables calibrated before 2026-12-02 do not have it (0: not measured).
  if (j.contains("sectors_per_request")) c.sectors_per_request = positive(r, j, path, "sectors_per_request");
  return c;
}

// Every cell on the axes, none twice, the grid complete.
std::vector<L2Cell> read_l2_cells(const Fields& r, const json& l2, const L2Section& axes) {
  const auto equal = [](const auto& a, const auto& b) { return a == b; };
  std::set<std::tuple<int, int, int>> seen;
  std::vector<L2Cell> cells;
  const json& list = r.array(l2, "l2", "cells");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("l2.cells", i);
    const L2Cell c = read_l2_cell(r, list[i], path);
    const std::tuple<int, int, int> key{
        axis_index(r, axes.ops, c.op, equal, path + ".op", enum_name(c.op), "l2.axes.ops"),
        axis_index(r, axes.spreads, c.spread, equal, path + ".spread", enum_name(c.spread), "l2.axes.spreads"),
        axis_index(r, axes.warps_per_sm, c.warps_per_sm, equal, path + ".warps_per_sm",
                   std::to_string(c.warps_per_sm), "l2.axes.warps_per_sm")};
    if (!seen.insert(key).second) r.fail(path, "duplicate L2 cell");
    cells.push_back(c);
  }
  const size_t expected = axes.ops.size() * axes.spreads.size() * axes.warps_per_sm.size();
  if (cells.size() != expected)
    r.fail("l2.cells", "grid incomplete: " + std::to_string(cells.size()) + " cells, axes need " +
                           std::to_string(expected) + " (truncated file?)");
  return cells;
}

bool boolean(const Fields& r, const json& j, const std::string& path, const char* key) {
  const json& v = r.member(j, path, key);
  if (!v.is_boolean()) r.fail(json_path(path, key), "expected true or false");
  return v.get<bool>();
}

// The law sweep's cells (key law_cells) or the word-lane sweep's (word_lane_cells, which add
// lanes_per_word); tables calibrated before a sweep have none of its cells.
enum class LawCellList { kLaw, kWordLanes };
std::vector<L2Cell> read_l2_law_cells(const Fields& r, const json& l2, LawCellList list_kind) {
  std::vector<L2Cell> cells;
  const bool word_lanes = list_kind == LawCellList::kWordLanes;
  const char* key = word_lanes ? "word_lane_cells" : "law_cells";
  if (!l2.contains(key)) return cells;
  const json& list = r.array(l2, "l2", key);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path(std::string("l2.") + key, i);
    L2Cell c = read_l2_cell(r, list[i], path);
    c.hot_addresses = positive_int(r, list[i], path, "hot_addresses");
    c.packed = boolean(r, list[i], path, "packed");
    c.active_lanes = static_cast<int>(r.integer(list[i], path, "active_lanes", 1, 32));
    c.dependent = boolean(r, list[i], path, "dependent");
    c.duration_ns = positive(r, list[i], path, "duration_ns");
    c.requests = positive(r, list[i], path, "requests");
    c.requests_in_flight = positive(r, list[i], path, "requests_in_flight");
    if (word_lanes) {
      c.lanes_per_word = static_cast<int>(r.integer(list[i], path, "lanes_per_word", 1, 32));
      if (c.active_lanes % c.lanes_per_word != 0)
        r.fail(path + ".lanes_per_word", "does not divide active_lanes");
    }
    cells.push_back(c);
  }
  return cells;
}

// The CAS retry sweep's points; tables calibrated before it have none.
std::vector<CasRetryPoint> read_cas_retry_points(const Fields& r, const json& l2) {
  std::vector<CasRetryPoint> points;
  if (!l2.contains("cas_retry")) return points;
  const json& list = r.array(l2, "l2", "cas_retry");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("l2.cas_retry", i);
    CasRetryPoint c;
    c.warps = positive_int(r, list[i], path, "warps");
    c.active_lanes = static_cast<int>(r.integer(list[i], path, "active_lanes", 1, 32));
    c.addresses = positive_int(r, list[i], path, "addresses");
    c.updates_per_lane = positive_int(r, list[i], path, "updates_per_lane");
    c.duration_ns = positive(r, list[i], path, "duration_ns");
    c.attempts = positive(r, list[i], path, "attempts");
    c.updates = positive(r, list[i], path, "updates");
    if (c.attempts < c.updates) r.fail(path + ".attempts", "fewer attempts than updates");
    points.push_back(c);
  }
  return points;
}

L2Section read_l2_section(const Fields& r, const json& doc) {
  const json& l2 = r.member(doc, "", "l2");
  L2Section s;
  s.slices = positive_int(r, l2, "l2", "slices");
  s.l2_clock_mhz = physical(r, l2, "l2", "l2_clock_mhz", kMinClockMhz, kMaxClockMhz, "MHz");
  s.wall_seconds = positive(r, l2, "l2", "wall_seconds");
  const json& axes = r.member(l2, "l2", "axes");
  s.ops = read_axis<GlobalAtomicOp>(r, axes, "l2.axes", "ops", [&](const json& v, const std::string& f) {
    return r.enumerated<GlobalAtomicOp>(v, f);
  });
  s.spreads = read_axis<AddressSpread>(r, axes, "l2.axes", "spreads", [&](const json& v, const std::string& f) {
    return r.enumerated<AddressSpread>(v, f);
  });
  s.warps_per_sm = read_axis<int>(r, axes, "l2.axes", "warps_per_sm", [&](const json& v, const std::string& f) {
    return static_cast<int>(r.integer(v, f, 1, 1024));
  });
  s.cells = read_l2_cells(r, l2, s);
  s.law_cells = read_l2_law_cells(r, l2, LawCellList::kLaw);
  s.word_lane_cells = read_l2_law_cells(r, l2, LawCellList::kWordLanes);
  s.cas_retry = read_cas_retry_points(r, l2);
  return s;
}

// A known table of an older version gets a message that says what to do.
void require_current_version(const Fields& r, const json& doc) {
  if (doc.contains("format") && doc["format"] == kServiceTableFormat && doc.contains("version") &&
      doc["version"] == 1)
    r.fail("", "table version 1 has no L2 section; this atomq reads version " +
                   std::to_string(kServiceTableVersion) + ": run `atomq calibrate`");
  try {
    r.require_format(doc, kServiceTableFormat, kServiceTableVersion);
  } catch (const TableError& e) {
    if (doc.contains("format") && doc["format"] == kServiceTableFormat)
      throw TableError(std::string(e.what()) + "; re-run atomq calibrate");
    throw;
  }
}

}  // namespace

ServiceTable parse_service_table(const std::string& json_text, const std::string& source) {
  const Fields r(source);
  const json doc = r.parse_object(json_text);
  require_current_version(r, doc);
  ServiceTable t;
  t.provenance = read_provenance(r, doc);
  t.axes = read_axes(r, doc);
  t.cells = read_cells(r, doc, t.axes);
  t.controls = read_controls(r, doc);
  read_latencies(r, doc, t);
  t.l2 = read_l2_section(r, doc);
  t.dsmem = detail::read_dsmem_section(r, doc);
  t.loads = detail::read_load_section(r, doc);
  t.shared_spin = detail::read_shared_spin_section(r, doc);
  t.launch = detail::read_launch_section(r, doc);
  return t;
}

ServiceTable load_service_table(const std::string& path) {
  return parse_service_table(Fields::read_file(path), path);
}

}  // namespace atomq::calibration
