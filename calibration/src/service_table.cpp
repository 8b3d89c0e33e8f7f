#include "atomq/calibration/service_table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

namespace atomq::calibration {

using nlohmann::json;

std::string to_string(OpVariant v) { return v == OpVariant::kPopcInc ? "popc_inc" : "add"; }

std::optional<OpVariant> op_variant_from_string(const std::string& s) {
  if (s == "popc_inc") return OpVariant::kPopcInc;
  if (s == "add") return OpVariant::kAdd;
  return std::nullopt;
}

std::string to_string(LatencyOp op) { return op == LatencyOp::kCas ? "cas" : "add"; }

std::optional<LatencyOp> latency_op_from_string(const std::string& s) {
  if (s == "add") return LatencyOp::kAdd;
  if (s == "cas") return LatencyOp::kCas;
  return std::nullopt;
}

std::string to_string(const Pattern& p) {
  if (p.conflict_degree == 0) return "same";
  if (p.conflict_degree == 1) return "distinct";
  return "conflict" + std::to_string(p.conflict_degree);
}

std::optional<Pattern> pattern_from_string(const std::string& s) {
  if (s == "same") return Pattern{0};
  if (s == "distinct") return Pattern{1};
  const std::string prefix = "conflict";
  if (s.rfind(prefix, 0) == 0 && s.size() > prefix.size() && s.size() <= prefix.size() + 2) {
    const std::string digits = s.substr(prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), ::isdigit)) return std::nullopt;
    const int k = std::stoi(digits);
    if (k >= 2 && k <= 32 && (32 % k) == 0) return Pattern{k};
  }
  return std::nullopt;
}

namespace {

bool same_c(double a, double b) { return std::fabs(a - b) < 1e-9; }

// Reads fields of one JSON document and names the file and the field in every error.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw TableError(source_ + ": field '" + field + "': " + what);
  }

  const json& member(const json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) fail(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(join(path, key), "missing");
    return *it;
  }
  std::string str(const json& obj, const std::string& path, const char* key) const {
    const json& v = member(obj, path, key);
    if (!v.is_string()) fail(join(path, key), "expected a string");
    return v.get<std::string>();
  }
  long long integer(const json& obj, const std::string& path, const char* key) const {
    const json& v = member(obj, path, key);
    if (!v.is_number_integer()) fail(join(path, key), "expected an integer");
    return v.get<long long>();
  }
  double number(const json& obj, const std::string& path, const char* key) const {
    const json& v = member(obj, path, key);
    if (!v.is_number()) fail(join(path, key), "expected a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(join(path, key), "not a finite number");
    return d;
  }
  const json& array(const json& obj, const std::string& path, const char* key) const {
    const json& v = member(obj, path, key);
    if (!v.is_array()) fail(join(path, key), "expected an array");
    if (v.empty()) fail(join(path, key), "empty");
    return v;
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string at(const std::string& path, size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }

 private:
  std::string source_;
};

json provenance_json(const Provenance& p) {
  return json{{"gpu_name", p.gpu_name},
              {"chip", p.chip},
              {"compute_capability", std::to_string(p.compute_capability_major) + "." +
                                         std::to_string(p.compute_capability_minor)},
              {"sm_count", p.sm_count},
              {"max_warps_per_sm", p.max_warps_per_sm},
              {"nominal_clock_mhz", p.nominal_clock_mhz},
              {"sm_clock_mhz_start", p.sm_clock_mhz_start},
              {"sm_clock_mhz_end", p.sm_clock_mhz_end},
              {"driver_version", p.driver_version},
              {"driver_release", p.driver_release},
              {"cuda_runtime_version", p.cuda_runtime_version},
              {"created_utc", p.created_utc},
              {"atomq_version", p.atomq_version},
              {"atomq_commit", p.atomq_commit},
              {"grid", p.grid_name},
              {"repeats", p.repeats},
              {"wall_seconds", p.wall_seconds}};
}

Provenance read_provenance(const Reader& r, const json& doc) {
  const std::string path = "provenance";
  const json& j = r.member(doc, "", "provenance");
  Provenance p;
  p.gpu_name = r.str(j, path, "gpu_name");
  p.chip = r.str(j, path, "chip");
  const std::string cc = r.str(j, path, "compute_capability");
  if (std::sscanf(cc.c_str(), "%d.%d", &p.compute_capability_major, &p.compute_capability_minor) != 2)
    r.fail(path + ".compute_capability", "expected 'major.minor', got '" + cc + "'");
  p.sm_count = static_cast<int>(r.integer(j, path, "sm_count"));
  if (p.sm_count <= 0) r.fail(path + ".sm_count", "must be positive");
  p.max_warps_per_sm = static_cast<int>(r.integer(j, path, "max_warps_per_sm"));
  if (p.max_warps_per_sm <= 0) r.fail(path + ".max_warps_per_sm", "must be positive");
  p.nominal_clock_mhz = static_cast<int>(r.integer(j, path, "nominal_clock_mhz"));
  p.sm_clock_mhz_start = r.number(j, path, "sm_clock_mhz_start");
  p.sm_clock_mhz_end = r.number(j, path, "sm_clock_mhz_end");
  p.driver_version = r.str(j, path, "driver_version");
  // Added after the first tables were written: optional, "unknown" when absent.
  p.driver_release = j.contains("driver_release") ? r.str(j, path, "driver_release") : "unknown";
  p.cuda_runtime_version = r.str(j, path, "cuda_runtime_version");
  p.created_utc = r.str(j, path, "created_utc");
  p.atomq_version = r.str(j, path, "atomq_version");
  p.atomq_commit = r.str(j, path, "atomq_commit");
  p.grid_name = r.str(j, path, "grid");
  p.repeats = static_cast<int>(r.integer(j, path, "repeats"));
  if (p.repeats <= 0) r.fail(path + ".repeats", "must be positive");
  p.wall_seconds = r.number(j, path, "wall_seconds");
  return p;
}

template <typename T>
void require_strictly_increasing(const Reader& r, const std::vector<T>& v, const std::string& field) {
  for (size_t i = 1; i < v.size(); ++i)
    if (!(v[i - 1] < v[i])) r.fail(Reader::at(field, i), "axis values must be strictly increasing");
}

Axes read_axes(const Reader& r, const json& doc) {
  const std::string path = "axes";
  const json& j = r.member(doc, "", "axes");
  Axes a;
  const json& n = r.array(j, path, "n");
  for (size_t i = 0; i < n.size(); ++i) {
    if (!n[i].is_number_integer() || n[i].get<long long>() < 1 || n[i].get<long long>() > 1024)
      r.fail(Reader::at(path + ".n", i), "expected an integer in 1..1024");
    a.n.push_back(n[i].get<int>());
  }
  require_strictly_increasing(r, a.n, path + ".n");
  const json& e = r.array(j, path, "e");
  for (size_t i = 0; i < e.size(); ++i) {
    if (!e[i].is_number_integer() || e[i].get<long long>() < 1 || e[i].get<long long>() > 32)
      r.fail(Reader::at(path + ".e", i), "expected an integer in 1..32");
    a.e.push_back(e[i].get<int>());
  }
  require_strictly_increasing(r, a.e, path + ".e");
  const json& c = r.array(j, path, "c");
  for (size_t i = 0; i < c.size(); ++i) {
    if (!c[i].is_number() || !(c[i].get<double>() >= 0.0) || c[i].get<double>() > 1.0)
      r.fail(Reader::at(path + ".c", i), "expected a number in 0..1");
    a.c.push_back(c[i].get<double>());
  }
  require_strictly_increasing(r, a.c, path + ".c");
  const json& v = r.array(j, path, "variants");
  for (size_t i = 0; i < v.size(); ++i) {
    auto parsed = v[i].is_string() ? op_variant_from_string(v[i].get<std::string>()) : std::nullopt;
    if (!parsed) r.fail(Reader::at(path + ".variants", i), "expected \"popc_inc\" or \"add\"");
    if (std::find(a.variants.begin(), a.variants.end(), *parsed) != a.variants.end())
      r.fail(Reader::at(path + ".variants", i), "duplicate");
    a.variants.push_back(*parsed);
  }
  const json& p = r.array(j, path, "patterns");
  for (size_t i = 0; i < p.size(); ++i) {
    auto parsed = p[i].is_string() ? pattern_from_string(p[i].get<std::string>()) : std::nullopt;
    if (!parsed)
      r.fail(Reader::at(path + ".patterns", i), "expected \"distinct\", \"conflictK\" or \"same\"");
    if (std::find(a.patterns.begin(), a.patterns.end(), *parsed) != a.patterns.end())
      r.fail(Reader::at(path + ".patterns", i), "duplicate");
    a.patterns.push_back(*parsed);
  }
  return a;
}

using CellKey = std::tuple<int, int, int, int, int>;  // n, e, c index, variant, pattern

int index_of_c(const Axes& a, double c) {
  for (size_t i = 0; i < a.c.size(); ++i)
    if (same_c(a.c[i], c)) return static_cast<int>(i);
  return -1;
}

}  // namespace

const Cell* ServiceTable::find(int n, int e, double c, OpVariant v, const Pattern& p) const {
  for (const Cell& cell : cells)
    if (cell.n == n && cell.e == e && same_c(cell.c, c) && cell.variant == v && cell.pattern == p)
      return &cell;
  return nullptr;
}

const LatencyCell* ServiceTable::find_latency(LatencyOp op, const Pattern& p, int e) const {
  for (const LatencyCell& cell : latencies)
    if (cell.op == op && cell.pattern == p && cell.e == e) return &cell;
  return nullptr;
}

ServiceTable parse_service_table(const std::string& json_text, const std::string& source) {
  Reader r(source);
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw TableError(source + ": not valid JSON (truncated or corrupt?) at byte " +
                     std::to_string(e.byte) + ": " + e.what());
  }
  if (!doc.is_object()) throw TableError(source + ": expected a JSON object at the top level");
  const std::string format = r.str(doc, "", "format");
  if (format != kServiceTableFormat)
    r.fail("format", "expected \"" + std::string(kServiceTableFormat) + "\", got \"" + format + "\"");
  const long long version = r.integer(doc, "", "version");
  if (version != kServiceTableVersion)
    r.fail("version", "unsupported version " + std::to_string(version) + " (this atomq reads version " +
                          std::to_string(kServiceTableVersion) + "); re-run atomq calibrate");

  ServiceTable t;
  t.provenance = read_provenance(r, doc);
  t.axes = read_axes(r, doc);

  std::set<CellKey> seen;
  const json& cells = r.array(doc, "", "cells");
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string path = Reader::at("cells", i);
    const json& j = cells[i];
    Cell c;
    c.n = static_cast<int>(r.integer(j, path, "n"));
    c.e = static_cast<int>(r.integer(j, path, "e"));
    c.c = r.number(j, path, "c");
    const std::string v = r.str(j, path, "variant");
    auto variant = op_variant_from_string(v);
    if (!variant) r.fail(path + ".variant", "unknown op variant '" + v + "'");
    c.variant = *variant;
    const std::string p = r.str(j, path, "pattern");
    auto pattern = pattern_from_string(p);
    if (!pattern) r.fail(path + ".pattern", "unknown address pattern '" + p + "'");
    c.pattern = *pattern;
    c.s = r.number(j, path, "s");
    c.s_min = r.number(j, path, "s_min");
    c.s_max = r.number(j, path, "s_max");
    c.spread = r.number(j, path, "spread");
    c.sm_spread = r.number(j, path, "sm_spread");
    c.atomics_per_warp = r.integer(j, path, "atomics_per_warp");
    if (!(c.s > 0)) r.fail(path + ".s", "service time must be positive");
    if (!(c.s_min > 0 && c.s_min <= c.s && c.s <= c.s_max))
      r.fail(path + ".s_min", "expected 0 < s_min <= s <= s_max");
    if (c.spread < 0 || c.sm_spread < 0) r.fail(path + ".spread", "must not be negative");
    if (c.atomics_per_warp <= 0) r.fail(path + ".atomics_per_warp", "must be positive");

    const auto ni = std::find(t.axes.n.begin(), t.axes.n.end(), c.n);
    if (ni == t.axes.n.end()) r.fail(path + ".n", "value " + std::to_string(c.n) + " is not on axes.n");
    const auto ei = std::find(t.axes.e.begin(), t.axes.e.end(), c.e);
    if (ei == t.axes.e.end()) r.fail(path + ".e", "value " + std::to_string(c.e) + " is not on axes.e");
    const int ci = index_of_c(t.axes, c.c);
    if (ci < 0) r.fail(path + ".c", "value is not on axes.c");
    const auto vi = std::find(t.axes.variants.begin(), t.axes.variants.end(), c.variant);
    if (vi == t.axes.variants.end()) r.fail(path + ".variant", "'" + v + "' is not on axes.variants");
    const auto pi = std::find(t.axes.patterns.begin(), t.axes.patterns.end(), c.pattern);
    if (pi == t.axes.patterns.end()) r.fail(path + ".pattern", "'" + p + "' is not on axes.patterns");
    const CellKey key{c.n, c.e, ci, static_cast<int>(vi - t.axes.variants.begin()),
                      static_cast<int>(pi - t.axes.patterns.begin())};
    if (!seen.insert(key).second) r.fail(path, "duplicate grid cell");
    t.cells.push_back(c);
  }
  const size_t expected = t.axes.n.size() * t.axes.e.size() * t.axes.c.size() *
                          t.axes.variants.size() * t.axes.patterns.size();
  if (t.cells.size() != expected)
    r.fail("cells", "grid incomplete: " + std::to_string(t.cells.size()) + " cells, axes need " +
                        std::to_string(expected) + " (truncated file?)");

  const json& controls = r.array(doc, "", "controls");
  for (size_t i = 0; i < controls.size(); ++i) {
    const std::string path = Reader::at("controls", i);
    ControlCell c;
    c.n = static_cast<int>(r.integer(controls[i], path, "n"));
    c.e = static_cast<int>(r.integer(controls[i], path, "e"));
    c.cycles_per_slot = r.number(controls[i], path, "cycles_per_slot");
    if (c.cycles_per_slot < 0) r.fail(path + ".cycles_per_slot", "must not be negative");
    t.controls.push_back(c);
  }

  const json& latencies = r.array(doc, "", "latencies");
  for (size_t i = 0; i < latencies.size(); ++i) {
    const std::string path = Reader::at("latencies", i);
    const json& j = latencies[i];
    LatencyCell c;
    const std::string op = r.str(j, path, "op");
    auto parsed_op = latency_op_from_string(op);
    if (!parsed_op) r.fail(path + ".op", "expected \"add\" or \"cas\", got '" + op + "'");
    c.op = *parsed_op;
    const std::string p = r.str(j, path, "pattern");
    auto pattern = pattern_from_string(p);
    if (!pattern) r.fail(path + ".pattern", "unknown address pattern '" + p + "'");
    c.pattern = *pattern;
    c.e = static_cast<int>(r.integer(j, path, "e"));
    if (c.e < 1 || c.e > 32) r.fail(path + ".e", "expected an integer in 1..32");
    c.cycles = r.number(j, path, "cycles");
    c.cycles_min = r.number(j, path, "cycles_min");
    c.cycles_max = r.number(j, path, "cycles_max");
    if (!(c.cycles > 0)) r.fail(path + ".cycles", "latency must be positive");
    if (!(c.cycles_min > 0 && c.cycles_min <= c.cycles && c.cycles <= c.cycles_max))
      r.fail(path + ".cycles_min", "expected 0 < cycles_min <= cycles <= cycles_max");
    if (t.find_latency(c.op, c.pattern, c.e) != nullptr) r.fail(path, "duplicate latency cell");
    t.latencies.push_back(c);
  }
  return t;
}

ServiceTable load_service_table(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TableError(path + ": cannot open the table file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw TableError(path + ": read error");
  return parse_service_table(ss.str(), path);
}

std::string serialize_service_table(const ServiceTable& t) {
  json axes{{"n", t.axes.n}, {"e", t.axes.e}, {"c", t.axes.c}};
  axes["variants"] = json::array();
  for (auto v : t.axes.variants) axes["variants"].push_back(to_string(v));
  axes["patterns"] = json::array();
  for (const auto& p : t.axes.patterns) axes["patterns"].push_back(to_string(p));
  json cells = json::array();
  for (const Cell& c : t.cells)
    cells.push_back(json{{"n", c.n}, {"e", c.e}, {"c", c.c}, {"variant", to_string(c.variant)},
                         {"pattern", to_string(c.pattern)}, {"s", c.s}, {"s_min", c.s_min},
                         {"s_max", c.s_max}, {"spread", c.spread}, {"sm_spread", c.sm_spread},
                         {"atomics_per_warp", c.atomics_per_warp}});
  json controls = json::array();
  for (const ControlCell& c : t.controls)
    controls.push_back(json{{"n", c.n}, {"e", c.e}, {"cycles_per_slot", c.cycles_per_slot}});
  json latencies = json::array();
  for (const LatencyCell& c : t.latencies)
    latencies.push_back(json{{"op", to_string(c.op)}, {"pattern", to_string(c.pattern)}, {"e", c.e},
                             {"cycles", c.cycles}, {"cycles_min", c.cycles_min},
                             {"cycles_max", c.cycles_max}});
  json doc{{"format", kServiceTableFormat},
           {"version", t.version},
           {"units", "cycles per warp-level shared atomic instruction per SM"},
           {"provenance", provenance_json(t.provenance)},
           {"axes", axes},
           {"cells", cells},
           {"controls", controls},
           {"latencies", latencies}};
  return doc.dump(1) + "\n";
}

std::string service_table_csv(const ServiceTable& t) {
  std::ostringstream out;
  out << "n,e,c,variant,pattern,s,s_min,s_max,spread,sm_spread,atomics_per_warp\n";
  for (const Cell& c : t.cells)
    out << c.n << ',' << c.e << ',' << c.c << ',' << to_string(c.variant) << ','
        << to_string(c.pattern) << ',' << c.s << ',' << c.s_min << ',' << c.s_max << ','
        << c.spread << ',' << c.sm_spread << ',' << c.atomics_per_warp << '\n';
  return out.str();
}

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot create temporary file " + tmp);
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error(path + ": write failed (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename temporary file into place");
  }
}

void save_service_table(const ServiceTable& table, const std::string& path) {
  // Round-trip through the reader first: never write a table this atomq could not load.
  const std::string text = serialize_service_table(table);
  parse_service_table(text, path);
  write_file_atomically(path, text);
}

}  // namespace atomq::calibration
