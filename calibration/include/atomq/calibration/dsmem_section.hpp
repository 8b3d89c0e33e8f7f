// The table's DSMEM section: what an atomic on a cluster peer's shared memory costs the issuing
// SM's request path to the SM-to-SM network, measured by atomq calibrate (docs/calibration.md,
// "The DSMEM section"). Part of the service-table document (service_table.hpp); plain C++.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "atomq/common/enum_names.hpp"

namespace atomq::calibration {

// The two ways a thread updates a peer block's shared word.
enum class DsmemOp {
  kAtomicAdd,  // atom/red on the shared::cluster window (atomicAdd through map_shared_rank)
  kRedAsync,   // red.async, completing on the peer's mbarrier
};
constexpr std::array<EnumName<DsmemOp>, 2> enum_names(DsmemOp) {
  return {{{DsmemOp::kAtomicAdd, "atomic_add"}, {DsmemOp::kRedAsync, "red_async"}}};
}

// One saturated cell: every SM full of cluster blocks whose threads add 1 to `bins` words of
// the next block's shared memory (lane l of a warp takes word (7 l + i) mod bins: 32 distinct
// banks when bins >= 32, one word when bins = 1).
struct DsmemCell {
  DsmemOp op = DsmemOp::kAtomicAdd;
  int bins = 0;
  int cluster_size = 0;
  int warps_per_sm = 0;
  double requests = 0;            // warp requests of one launch (the collector's DSMEM request counters)
  double cycles_per_request = 0;  // SM cycles per warp request per SM (median over repeats)
  double cycles_min = 0, cycles_max = 0;
  double repeat_spread = 0;       // (max - min) / median
  // The busiest SM's DSMEM request path active cycles / its active cycles (median): what the
  // path's busy counter reads when atomics saturate it.
  double busy_fraction = 0;
  double duration_ns = 0;         // median launch time under the counters
};

struct DsmemSection {
  // The run that measured the section: the table's own, unless the section was added to a table
  // of an earlier run (the bundled GH100 table: docs/calibration.md, "The DSMEM section").
  std::string created_utc;
  std::string atomq_commit;
  double wall_seconds = 0;
  std::vector<DsmemCell> cells;  // empty in tables calibrated before the DSMEM sweep

  bool empty() const { return cells.empty(); }
  // The cheapest per-request cell of `op` (no conflicts at the peer) and the busiest busy
  // counter reading of `op`'s cells; nullptr / 0 when `op` has no cell.
  const DsmemCell* fastest(DsmemOp op) const;
  double saturated_busy_fraction(DsmemOp op) const;
};

}  // namespace atomq::calibration
