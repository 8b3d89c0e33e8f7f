// The service-time table S(n, e, c | op variant, address pattern): the one definition of the
// calibration file, used by every reader and writer (calibrate, model, analyzer, report).
//
// File format "atomq.service_table", version kServiceTableVersion: JSON with provenance, the
// axes, one record per grid cell and the L2 section (see docs/calibration.md). Plain C++: no
// CUDA header.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/calibration/dsmem_section.hpp"
#include "atomq/calibration/launch_section.hpp"
#include "atomq/calibration/load_section.hpp"
#include "atomq/calibration/shared_spin_section.hpp"
#include "atomq/calibration/l2_section.hpp"
#include "atomq/common/device_info.hpp"
#include "atomq/common/shared_atomic.hpp"

namespace atomq::calibration {

inline constexpr const char* kServiceTableFormat = "atomq.service_table";
// Version 2 added the L2 section ("l2"); a version-1 table is refused with a message that
// says to calibrate again.
inline constexpr int kServiceTableVersion = 2;

// The stream vocabulary (op variant, address pattern, latency op) is defined once, in
// atomq/common/shared_atomic.hpp; the table names its values with the same names.
using atomq::LatencyOp;
using atomq::OpVariant;
using atomq::Pattern;
using atomq::pattern_from_string;
using atomq::to_string;

struct Provenance {
  DeviceInfo device;              // name, chip, compute capability, SMs, warps per SM,
                                  // nominal clock, driver and runtime versions
  double sm_clock_mhz_start = 0;  // measured under load before the sweep
  double sm_clock_mhz_end = 0;    // ... and after it
  std::string driver_release;     // kernel module release, e.g. "580.159.04" ("unknown" if unreadable)
  std::string created_utc;        // ISO 8601
  std::string atomq_version;
  std::string atomq_commit;
  std::string grid_name;          // "quick" or "full"
  int repeats = 0;
  double wall_seconds = 0;
};

struct Axes {
  std::vector<int> n;             // warps in flight per SM
  std::vector<int> e;             // active lanes per warp instruction
  std::vector<double> c;          // CAS share of the instruction stream
  std::vector<OpVariant> variants;
  std::vector<Pattern> patterns;
};

// One measured grid cell. s_* are cycles per warp-level atomic instruction per SM.
struct Cell {
  int n = 0;
  int e = 0;
  double c = 0;
  OpVariant variant = OpVariant::kAdd;
  Pattern pattern;
  double s = 0;            // median over repeats of the per-repeat median over SMs
  double s_min = 0;        // smallest / largest per-repeat median
  double s_max = 0;
  double spread = 0;       // (s_max - s_min) / s
  double sm_spread = 0;    // (p90 - p10) / median over SMs, pooled over repeats
  long long atomics_per_warp = 0;
};

// Zero-atomic control: the same loop with the atomic removed, per (n, e); its cycles per
// would-be atomic slot show how much loop overhead could leak into S.
struct ControlCell {
  int n = 0;
  int e = 0;
  double cycles_per_slot = 0;
};

// Unloaded latency (n = 1): cycles from issue to result of one atomic whose address depends
// on the previous result. The response time of an unqueued atomic, for Little's law.
struct LatencyCell {
  LatencyOp op = LatencyOp::kAdd;
  Pattern pattern;
  int e = 32;
  double cycles = 0;      // median over repeats of the per-repeat median over SMs
  double cycles_min = 0;
  double cycles_max = 0;
};

struct ServiceTable {
  int version = kServiceTableVersion;
  Provenance provenance;
  Axes axes;
  std::vector<Cell> cells;
  std::vector<ControlCell> controls;
  std::vector<LatencyCell> latencies;
  L2Section l2;  // global atomics at the L2 slices (l2_section.hpp)
  DsmemSection dsmem;  // atomics on a cluster peer's shared memory (dsmem_section.hpp); optional
  LoadSection loads;   // global load round trips (load_section.hpp); optional
  SharedSpinSection shared_spin;  // shared float/double adds' CAS loop (shared_spin_section.hpp); optional
  LaunchSection launch;  // an empty kernel's duration by grid (launch_section.hpp); optional

  // Exact grid lookup; nullptr when the point is not a grid point.
  const Cell* find(int n, int e, double c, OpVariant v, const Pattern& p) const;
  const LatencyCell* find_latency(LatencyOp op, const Pattern& p, int e) const;
};

// Two CAS shares are one axis value (within 1e-9).
bool same_cas_share(double a, double b);

// A malformed, truncated or wrong-version table. what() names the file and the field.
class TableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parse and validate (schema, version, axes, completeness of the grid, finite positive values).
ServiceTable parse_service_table(const std::string& json_text, const std::string& source_name);
ServiceTable load_service_table(const std::string& path);
std::string serialize_service_table(const ServiceTable& table);  // pretty JSON
// What identifies a table's content (16 hex digits: FNV-1a of its serialized JSON), so a run
// document can say which table its analyses used, whatever the file was called.
std::string service_table_digest(const ServiceTable& table);
std::string service_table_csv(const ServiceTable& table);        // one row per cell
std::string service_table_l2_csv(const ServiceTable& table);     // one row per L2 cell

// Written through atomq::write_file_atomically, after a round trip through the reader.
void save_service_table(const ServiceTable& table, const std::string& path);

}  // namespace atomq::calibration
