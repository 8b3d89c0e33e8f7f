// The readers of the table's optional sweep sections (DSMEM, load round trips, shared CAS spin,
// launch floor): each absent in tables calibrated before its sweep. Every error names the field.
#include <nlohmann/json.hpp>

#include "table_reader_detail.hpp"

namespace atomq::calibration::detail {

using nlohmann::json;

namespace {

// A sweep section: absent in tables calibrated before its sweep, else its provenance and at
// least one cell, each read by `read_cell(cell, path, cells read so far)`.
template <typename Section, typename ReadCell>
Section read_sweep_section(const Fields& r, const json& doc, const std::string& name, ReadCell read_cell) {
  Section s;
  if (!doc.contains(name)) return s;
  const json& d = r.member(doc, "", name);
  s.created_utc = r.str(d, name, "created_utc");
  s.atomq_commit = r.str(d, name, "atomq_commit");
  s.wall_seconds = positive(r, d, name, "wall_seconds");
  const json& list = r.array(d, name, "cells");
  for (size_t i = 0; i < list.size(); ++i) s.cells.push_back(read_cell(list[i], json_path(name + ".cells", i), s.cells));
  if (s.cells.empty()) r.fail(name + ".cells", "empty (omit the section instead)");
  return s;
}

// A cell's median within its repeats' [min, max].
void require_within(const Fields& r, const std::string& path, const char* key, double min, double value, double max,
                    const char* range) {
  if (min > value || value > max) r.fail(path + "." + key, std::string("outside ") + range);
}

}  // namespace

DsmemSection read_dsmem_section(const Fields& r, const json& doc) {
  return read_sweep_section<DsmemSection>(r, doc, "dsmem", [&r](const json& j, const std::string& path, const auto&) {
    DsmemCell c;
    c.op = r.enumerated<DsmemOp>(j, path, "op");
    c.bins = positive_int(r, j, path, "bins");
    c.cluster_size = positive_int(r, j, path, "cluster_size");
    c.warps_per_sm = positive_int(r, j, path, "warps_per_sm");
    c.requests = positive(r, j, path, "requests");
    c.cycles_per_request = positive(r, j, path, "cycles_per_request");
    c.cycles_min = positive(r, j, path, "cycles_min");
    c.cycles_max = positive(r, j, path, "cycles_max");
    c.repeat_spread = r.number(j, path, "repeat_spread", 0.0, 10.0);
    c.busy_fraction = r.number(j, path, "busy_fraction", 0.0, 1.5);
    c.duration_ns = positive(r, j, path, "duration_ns");
    require_within(r, path, "cycles_per_request", c.cycles_min, c.cycles_per_request, c.cycles_max,
                   "[cycles_min, cycles_max]");
    return c;
  });
}

LoadSection read_load_section(const Fields& r, const json& doc) {
  return read_sweep_section<LoadSection>(r, doc, "loads", [&r](const json& j, const std::string& path, const auto&) {
    LoadCell c;
    c.residency = r.enumerated<LoadResidency>(j, path, "residency");
    c.sectors_per_request = positive_int(r, j, path, "sectors_per_request");
    c.warps_per_sm = positive_int(r, j, path, "warps_per_sm");
    c.steps = positive_int(r, j, path, "steps");
    c.round_trip_ns = positive(r, j, path, "round_trip_ns");
    c.round_trip_min_ns = positive(r, j, path, "round_trip_min_ns");
    c.round_trip_max_ns = positive(r, j, path, "round_trip_max_ns");
    c.repeat_spread = r.number(j, path, "repeat_spread", 0.0, 10.0);
    require_within(r, path, "round_trip_ns", c.round_trip_min_ns, c.round_trip_ns, c.round_trip_max_ns,
                   "[round_trip_min_ns, round_trip_max_ns]");
    return c;
  });
}

SharedSpinSection read_shared_spin_section(const Fields& r, const json& doc) {
  return read_sweep_section<SharedSpinSection>(r, doc, "shared_spin",
                                               [&r](const json& j, const std::string& path, const auto&) {
    SharedSpinCell c;
    c.word_bytes = static_cast<int>(r.integer(j, path, "word_bytes", 4, 8));
    if (c.word_bytes != 4 && c.word_bytes != 8) r.fail(path + ".word_bytes", "not 4 or 8");
    c.lanes_per_word = static_cast<int>(r.integer(j, path, "lanes_per_word", 1, 32));
    c.warps_per_word = static_cast<int>(r.integer(j, path, "warps_per_word", 1, 64));
    c.warps_per_sm = positive_int(r, j, path, "warps_per_sm");
    c.iterations = positive_int(r, j, path, "iterations");
    c.cycles_per_entry = positive(r, j, path, "cycles_per_entry");
    c.cycles_min = positive(r, j, path, "cycles_min");
    c.cycles_max = positive(r, j, path, "cycles_max");
    c.repeat_spread = r.number(j, path, "repeat_spread", 0.0, 10.0);
    require_within(r, path, "cycles_per_entry", c.cycles_min, c.cycles_per_entry, c.cycles_max,
                   "[cycles_min, cycles_max]");
    return c;
  });
}

LaunchSection read_launch_section(const Fields& r, const json& doc) {
  return read_sweep_section<LaunchSection>(r, doc, "launch",
                                           [&r](const json& j, const std::string& path,
                                                const std::vector<LaunchCell>& seen) {
    LaunchCell c;
    c.blocks = r.integer(j, path, "blocks", 1, 0x7fffffffLL);
    c.threads_per_block = static_cast<int>(r.integer(j, path, "threads_per_block", 1, 1024));
    c.duration_ns = positive(r, j, path, "duration_ns");
    c.duration_min_ns = positive(r, j, path, "duration_min_ns");
    c.duration_max_ns = positive(r, j, path, "duration_max_ns");
    c.repeat_spread = r.number(j, path, "repeat_spread", 0.0, 10.0);
    require_within(r, path, "duration_ns", c.duration_min_ns, c.duration_ns, c.duration_max_ns,
                   "[duration_min_ns, duration_max_ns]");
    for (const LaunchCell& other : seen)
      if (other.blocks == c.blocks && other.threads_per_block == c.threads_per_block)
        r.fail(path, "a second cell of the same blocks and threads_per_block");
    return c;
  });
}

}  // namespace atomq::calibration::detail
