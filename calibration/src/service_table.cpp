// The service table's writer side: grid lookup, JSON and CSV output, saving. The reader is
// service_table_reader.cpp.
#include "atomq/calibration/service_table.hpp"
#include "atomq/common/json_fields.hpp"

#include <cstdint>
#include <cstdio>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atomq/common/atomic_file.hpp"

namespace atomq::calibration {

using nlohmann::json;

namespace {

json provenance_json(const Provenance& p) {
  json j{{"gpu_name", p.device.name},
              {"chip", p.device.chip},
              {"compute_capability", p.device.compute_capability()},
              {"sm_count", p.device.sm_count},
              {"max_warps_per_sm", p.device.max_warps_per_sm},
              {"nominal_clock_mhz", p.device.clock_khz / 1000},
              {"sm_clock_mhz_start", p.sm_clock_mhz_start},
              {"sm_clock_mhz_end", p.sm_clock_mhz_end},
              {"driver_version", cuda_version_string(p.device.driver_version)},
              {"driver_release", p.driver_release},
              {"cuda_runtime_version", cuda_version_string(p.device.runtime_version)},
              {"created_utc", p.created_utc},
              {"atomq_version", p.atomq_version},
              {"atomq_commit", p.atomq_commit},
              {"grid", p.grid_name},
              {"repeats", p.repeats},
              {"wall_seconds", p.wall_seconds}};
  if (!p.device.uuid.empty()) {  // which GPU of the host (calibrate --all-devices: one table each)
    j["device_ordinal"] = p.device.ordinal;
    j["device_uuid"] = p.device.uuid;
  }
  return j;
}

json l2_cell_json(const L2Cell& c) {
  json j{{"op", enum_name(c.op)},
         {"spread", enum_name(c.spread)},
         {"warps_per_sm", c.warps_per_sm},
         {"addresses", c.addresses},
         {"requests_per_instruction", c.requests_per_instruction},
         {"hottest_slice_share", c.hottest_slice_share},
         {"cycles_per_request", c.cycles_per_request},
         {"cycles_min", c.cycles_min},
         {"cycles_max", c.cycles_max},
         {"repeat_spread", c.repeat_spread},
         {"busy_fraction", c.busy_fraction},
         {"gpu_requests_per_cycle", c.gpu_requests_per_cycle}};
  if (c.sectors_per_request > 0) j["sectors_per_request"] = c.sectors_per_request;
  return j;
}

// A law-sweep cell: the cell's fields and its pattern.
json l2_law_cell_json(const L2Cell& c) {
  json j = l2_cell_json(c);
  j.update(json{{"hot_addresses", c.hot_addresses},
                {"packed", c.packed},
                {"active_lanes", c.active_lanes},
                {"dependent", c.dependent},
                {"duration_ns", c.duration_ns},
                {"requests", c.requests},
                {"requests_in_flight", c.requests_in_flight}});
  return j;
}

// The L2 section; cell fields are named as in L2Cell (l2_section.hpp).
json l2_section_json(const L2Section& l2) {
  json axes{{"warps_per_sm", l2.warps_per_sm}};
  axes["ops"] = json::array();
  for (GlobalAtomicOp op : l2.ops) axes["ops"].push_back(enum_name(op));
  axes["spreads"] = json::array();
  for (AddressSpread s : l2.spreads) axes["spreads"].push_back(enum_name(s));
  json cells = json::array();
  for (const L2Cell& c : l2.cells) cells.push_back(l2_cell_json(c));
  json law_cells = json::array();
  for (const L2Cell& c : l2.law_cells) law_cells.push_back(l2_law_cell_json(c));
  json word_lane_cells = json::array();
  for (const L2Cell& c : l2.word_lane_cells) {
    json j = l2_law_cell_json(c);
    j["lanes_per_word"] = c.lanes_per_word;
    word_lane_cells.push_back(std::move(j));
  }
  json section{{"units", "L2 cycles per request at the hottest slice"},
              {"slices", l2.slices},
              {"l2_clock_mhz", l2.l2_clock_mhz},
              {"wall_seconds", l2.wall_seconds},
              {"axes", axes},
              {"cells", cells}};
  if (!law_cells.empty()) section["law_cells"] = std::move(law_cells);  // tables before the law sweep have none
  if (!word_lane_cells.empty()) section["word_lane_cells"] = std::move(word_lane_cells);
  if (!l2.cas_retry.empty()) {
    json points = json::array();
    for (const CasRetryPoint& c : l2.cas_retry)
      points.push_back(json{{"warps", c.warps},
                            {"active_lanes", c.active_lanes},
                            {"addresses", c.addresses},
                            {"updates_per_lane", c.updates_per_lane},
                            {"duration_ns", c.duration_ns},
                            {"attempts", c.attempts},
                            {"updates", c.updates}});
    section["cas_retry"] = std::move(points);
  }
  return section;
}

json dsmem_section_json(const DsmemSection& d) {
  json cells = json::array();
  for (const DsmemCell& c : d.cells)
    cells.push_back(json{{"op", enum_name(c.op)},
                         {"bins", c.bins},
                         {"cluster_size", c.cluster_size},
                         {"warps_per_sm", c.warps_per_sm},
                         {"requests", c.requests},
                         {"cycles_per_request", c.cycles_per_request},
                         {"cycles_min", c.cycles_min},
                         {"cycles_max", c.cycles_max},
                         {"repeat_spread", c.repeat_spread},
                         {"busy_fraction", c.busy_fraction},
                         {"duration_ns", c.duration_ns}});
  return json{{"units", "SM cycles per warp request per SM"},
              {"created_utc", d.created_utc},
              {"atomq_commit", d.atomq_commit},
              {"wall_seconds", d.wall_seconds},
              {"cells", cells}};
}

json load_section_json(const LoadSection& l) {
  json cells = json::array();
  for (const LoadCell& c : l.cells)
    cells.push_back(json{{"residency", enum_name(c.residency)},
                         {"sectors_per_request", c.sectors_per_request},
                         {"warps_per_sm", c.warps_per_sm},
                         {"steps", c.steps},
                         {"round_trip_ns", c.round_trip_ns},
                         {"round_trip_min_ns", c.round_trip_min_ns},
                         {"round_trip_max_ns", c.round_trip_max_ns},
                         {"repeat_spread", c.repeat_spread}});
  return json{{"units", "ns per dependent global load, one load in flight per warp"},
              {"created_utc", l.created_utc},
              {"atomq_commit", l.atomq_commit},
              {"wall_seconds", l.wall_seconds},
              {"cells", cells}};
}

json shared_spin_section_json(const SharedSpinSection& l) {
  json cells = json::array();
  for (const SharedSpinCell& c : l.cells)
    cells.push_back(json{{"word_bytes", c.word_bytes},
                         {"lanes_per_word", c.lanes_per_word},
                         {"warps_per_word", c.warps_per_word},
                         {"warps_per_sm", c.warps_per_sm},
                         {"iterations", c.iterations},
                         {"cycles_per_entry", c.cycles_per_entry},
                         {"cycles_min", c.cycles_min},
                         {"cycles_max", c.cycles_max},
                         {"repeat_spread", c.repeat_spread}});
  return json{{"units", "SM cycles per warp entry of a shared float or double add's CAS loop, per SM"},
              {"created_utc", l.created_utc},
              {"atomq_commit", l.atomq_commit},
              {"wall_seconds", l.wall_seconds},
              {"cells", cells}};
}

json launch_section_json(const LaunchSection& l) {
  json cells = json::array();
  for (const LaunchCell& c : l.cells)
    cells.push_back(json{{"blocks", c.blocks},
                         {"threads_per_block", c.threads_per_block},
                         {"duration_ns", c.duration_ns},
                         {"duration_min_ns", c.duration_min_ns},
                         {"duration_max_ns", c.duration_max_ns},
                         {"repeat_spread", c.repeat_spread}});
  return json{{"units", "ns of gpu__time_duration of an empty kernel of the grid"},
              {"created_utc", l.created_utc},
              {"atomq_commit", l.atomq_commit},
              {"wall_seconds", l.wall_seconds},
              {"cells", cells}};
}

}  // namespace

bool same_cas_share(double a, double b) { return std::fabs(a - b) < 1e-9; }

const Cell* ServiceTable::find(int n, int e, double c, OpVariant v, const Pattern& p) const {
  for (const Cell& cell : cells)
    if (cell.n == n && cell.e == e && same_cas_share(cell.c, c) && cell.variant == v && cell.pattern == p)
      return &cell;
  return nullptr;
}

const LatencyCell* ServiceTable::find_latency(LatencyOp op, const Pattern& p, int e) const {
  for (const LatencyCell& cell : latencies)
    if (cell.op == op && cell.pattern == p && cell.e == e) return &cell;
  return nullptr;
}

std::string serialize_service_table(const ServiceTable& t) {
  json axes{{"n", t.axes.n}, {"e", t.axes.e}, {"c", t.axes.c}};
  axes["variants"] = json::array();
  for (auto v : t.axes.variants) axes["variants"].push_back(enum_name(v));
  axes["patterns"] = json::array();
  for (const auto& p : t.axes.patterns) axes["patterns"].push_back(to_string(p));
  json cells = json::array();
  for (const Cell& c : t.cells)
    cells.push_back(json{{"n", c.n}, {"e", c.e}, {"c", c.c}, {"variant", enum_name(c.variant)},
                         {"pattern", to_string(c.pattern)}, {"s", c.s}, {"s_min", c.s_min},
                         {"s_max", c.s_max}, {"spread", c.spread}, {"sm_spread", c.sm_spread},
                         {"atomics_per_warp", c.atomics_per_warp}});
  json controls = json::array();
  for (const ControlCell& c : t.controls)
    controls.push_back(json{{"n", c.n}, {"e", c.e}, {"cycles_per_slot", c.cycles_per_slot}});
  json latencies = json::array();
  for (const LatencyCell& c : t.latencies)
    latencies.push_back(json{{"op", enum_name(c.op)}, {"pattern", to_string(c.pattern)}, {"e", c.e},
                             {"cycles", c.cycles}, {"cycles_min", c.cycles_min},
                             {"cycles_max", c.cycles_max}});
  json doc{{"format", kServiceTableFormat},
           {"version", t.version},
           {"units", "cycles per warp-level shared atomic instruction per SM"},
           {"provenance", provenance_json(t.provenance)},
           {"axes", axes},
           {"cells", cells},
           {"controls", controls},
           {"latencies", latencies},
           {"l2", l2_section_json(t.l2)}};
  if (!t.dsmem.empty()) doc["dsmem"] = dsmem_section_json(t.dsmem);  // tables before the DSMEM sweep have none
  if (!t.loads.empty()) doc["loads"] = load_section_json(t.loads);    // nor before the load sweep
  if (!t.shared_spin.empty()) doc["shared_spin"] = shared_spin_section_json(t.shared_spin);  // nor before that sweep
  if (!t.launch.empty()) doc["launch"] = launch_section_json(t.launch);  // nor before the launch sweep
  return json_text(doc, 1) + "\n";
}

std::string service_table_digest(const ServiceTable& t) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits: an identity, not a defence
  for (const unsigned char c : serialize_service_table(t)) h = (h ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string service_table_csv(const ServiceTable& t) {
  std::ostringstream out;
  out << "n,e,c,variant,pattern,s,s_min,s_max,spread,sm_spread,atomics_per_warp\n";
  for (const Cell& c : t.cells)
    out << c.n << ',' << c.e << ',' << c.c << ',' << enum_name(c.variant) << ','
        << to_string(c.pattern) << ',' << c.s << ',' << c.s_min << ',' << c.s_max << ','
        << c.spread << ',' << c.sm_spread << ',' << c.atomics_per_warp << '\n';
  return out.str();
}

std::string service_table_l2_csv(const ServiceTable& t) {
  std::ostringstream out;
  out << "op,spread,warps_per_sm,addresses,requests_per_instruction,hottest_slice_share,"
         "cycles_per_request,cycles_min,cycles_max,repeat_spread,busy_fraction,"
         "gpu_requests_per_cycle,sectors_per_request\n";
  for (const L2Cell& c : t.l2.cells)
    out << enum_name(c.op) << ',' << enum_name(c.spread) << ',' << c.warps_per_sm << ','
        << c.addresses << ',' << c.requests_per_instruction << ',' << c.hottest_slice_share << ','
        << c.cycles_per_request << ',' << c.cycles_min << ',' << c.cycles_max << ','
        << c.repeat_spread << ',' << c.busy_fraction << ',' << c.gpu_requests_per_cycle << ','
        << c.sectors_per_request << '\n';
  return out.str();
}

void save_service_table(const ServiceTable& table, const std::string& path) {
  // Round-trip through the reader first: never write a table this atomq could not load.
  const std::string text = serialize_service_table(table);
  parse_service_table(text, path);
  write_file_atomically(path, text);
}

}  // namespace atomq::calibration
