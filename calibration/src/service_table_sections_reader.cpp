// The readers of the table's optional sweep sections (DSMEM, load round trips, shared CAS spin,
// launch floor): each absent in tables calibrated before its sweep. Every error names the field.
#include <nlohmann/json.hpp>

#include "table_reader_detail.hpp"

namespace atomq::calibration::detail {

using nlohmann::json;

// The DSMEM sweep's cells; tables calibrated before it have no section.
DsmemSection read_dsmem_section(const Fields& r, const json& doc) {
  DsmemSection s;
  if (!doc.contains("dsmem")) return s;
  const json& d = r.member(doc, "", "dsmem");
  s.created_utc = r.str(d, "dsmem", "created_utc");
  s.atomq_commit = r.str(d, "dsmem", "atomq_commit");
  s.wall_seconds = positive(r, d, "dsmem", "wall_seconds");
  const json& list = r.array(d, "dsmem", "cells");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("dsmem.cells", i);
    DsmemCell c;
    c.op = r.enumerated<DsmemOp>(list[i], path, "op");
    c.bins = positive_int(r, list[i], path, "bins");
    c.cluster_size = positive_int(r, list[i], path, "cluster_size");
    c.warps_per_sm = positive_int(r, list[i], path, "warps_per_sm");
    c.requests = positive(r, list[i], path, "requests");
    c.cycles_per_request = positive(r, list[i], path, "cycles_per_request");
    c.cycles_min = positive(r, list[i], path, "cycles_min");
    c.cycles_max = positive(r, list[i], path, "cycles_max");
    c.repeat_spread = r.number(list[i], path, "repeat_spread", 0.0, 10.0);
    c.busy_fraction = r.number(list[i], path, "busy_fraction", 0.0, 1.5);
    c.duration_ns = positive(r, list[i], path, "duration_ns");
    if (c.cycles_min > c.cycles_per_request || c.cycles_per_request > c.cycles_max)
      r.fail(path + ".cycles_per_request", "outside [cycles_min, cycles_max]");
    s.cells.push_back(c);
  }
  if (s.cells.empty()) r.fail("dsmem.cells", "empty (omit the section instead)");
  return s;
}

// The load sweep's cells; tables calibrated before it have no section.
LoadSection read_load_section(const Fields& r, const json& doc) {
  LoadSection s;
  if (!doc.contains("loads")) return s;
  const json& d = r.member(doc, "", "loads");
  s.created_utc = r.str(d, "loads", "created_utc");
  s.atomq_commit = r.str(d, "loads", "atomq_commit");
  s.wall_seconds = positive(r, d, "loads", "wall_seconds");
  const json& list = r.array(d, "loads", "cells");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("loads.cells", i);
    LoadCell c;
    c.residency = r.enumerated<LoadResidency>(list[i], path, "residency");
    c.sectors_per_request = positive_int(r, list[i], path, "sectors_per_request");
    c.warps_per_sm = positive_int(r, list[i], path, "warps_per_sm");
    c.steps = positive_int(r, list[i], path, "steps");
    c.round_trip_ns = positive(r, list[i], path, "round_trip_ns");
    c.round_trip_min_ns = positive(r, list[i], path, "round_trip_min_ns");
    c.round_trip_max_ns = positive(r, list[i], path, "round_trip_max_ns");
    c.repeat_spread = r.number(list[i], path, "repeat_spread", 0.0, 10.0);
    if (c.round_trip_min_ns > c.round_trip_ns || c.round_trip_ns > c.round_trip_max_ns)
      r.fail(path + ".round_trip_ns", "outside [round_trip_min_ns, round_trip_max_ns]");
    s.cells.push_back(c);
  }
  if (s.cells.empty()) r.fail("loads.cells", "empty (omit the section instead)");
  return s;
}

// The shared CAS-spin sweep's cells; tables calibrated before it have no section.
SharedSpinSection read_shared_spin_section(const Fields& r, const json& doc) {
  SharedSpinSection s;
  if (!doc.contains("shared_spin")) return s;
  const json& d = r.member(doc, "", "shared_spin");
  s.created_utc = r.str(d, "shared_spin", "created_utc");
  s.atomq_commit = r.str(d, "shared_spin", "atomq_commit");
  s.wall_seconds = positive(r, d, "shared_spin", "wall_seconds");
  const json& list = r.array(d, "shared_spin", "cells");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("shared_spin.cells", i);
    SharedSpinCell c;
    c.word_bytes = static_cast<int>(r.integer(list[i], path, "word_bytes", 4, 8));
    if (c.word_bytes != 4 && c.word_bytes != 8) r.fail(path + ".word_bytes", "not 4 or 8");
    c.lanes_per_word = static_cast<int>(r.integer(list[i], path, "lanes_per_word", 1, 32));
    c.warps_per_word = static_cast<int>(r.integer(list[i], path, "warps_per_word", 1, 64));
    c.warps_per_sm = positive_int(r, list[i], path, "warps_per_sm");
    c.iterations = positive_int(r, list[i], path, "iterations");
    c.cycles_per_entry = positive(r, list[i], path, "cycles_per_entry");
    c.cycles_min = positive(r, list[i], path, "cycles_min");
    c.cycles_max = positive(r, list[i], path, "cycles_max");
    c.repeat_spread = r.number(list[i], path, "repeat_spread", 0.0, 10.0);
    if (c.cycles_min > c.cycles_per_entry || c.cycles_per_entry > c.cycles_max)
      r.fail(path + ".cycles_per_entry", "outside [cycles_min, cycles_max]");
    s.cells.push_back(c);
  }
  if (s.cells.empty()) r.fail("shared_spin.cells", "empty (omit the section instead)");
  return s;
}

// The launch-floor sweep's cells; tables calibrated before it have no section.
LaunchSection read_launch_section(const Fields& r, const json& doc) {
  LaunchSection s;
  if (!doc.contains("launch")) return s;
  const json& d = r.member(doc, "", "launch");
  s.created_utc = r.str(d, "launch", "created_utc");
  s.atomq_commit = r.str(d, "launch", "atomq_commit");
  s.wall_seconds = positive(r, d, "launch", "wall_seconds");
  const json& list = r.array(d, "launch", "cells");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = json_path("launch.cells", i);
    LaunchCell c;
    c.blocks = r.integer(list[i], path, "blocks", 1, 0x7fffffffLL);
    c.threads_per_block = static_cast<int>(r.integer(list[i], path, "threads_per_block", 1, 1024));
    c.duration_ns = positive(r, list[i], path, "duration_ns");
    c.duration_min_ns = positive(r, list[i], path, "duration_min_ns");
    c.duration_max_ns = positive(r, list[i], path, "duration_max_ns");
    c.repeat_spread = r.number(list[i], path, "repeat_spread", 0.0, 10.0);
    if (c.duration_min_ns > c.duration_ns || c.duration_ns > c.duration_max_ns)
      r.fail(path + ".duration_ns", "outside [duration_min_ns, duration_max_ns]");
    for (const LaunchCell& seen : s.cells)
      if (seen.blocks == c.blocks && seen.threads_per_block == c.threads_per_block)
        r.fail(path, "a second cell of the same blocks and threads_per_block");
    s.cells.push_back(c);
  }
  if (s.cells.empty()) r.fail("launch.cells", "empty (omit the section instead)");
  return s;
}

}  // namespace atomq::calibration::detail
