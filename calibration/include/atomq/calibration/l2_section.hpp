// The table's L2 section: service times of the L2 slices' atomic units for global atomics,
// per operation and address spread, measured by atomq calibrate (docs/calibration.md,
// "The L2 section"). Part of the service-table document (service_table.hpp); plain C++.
#pragma once

#include <vector>

#include "atomq/common/global_atomic.hpp"

namespace atomq::calibration {

using atomq::AddressSpread;
using atomq::GlobalAtomicOp;

// One measured cell: a grid of `warps_per_sm` warps per SM, each issuing global atomics of
// `op` over `spread`. Service times are in L2 cycles (lts__cycles_elapsed) per request at
// the hottest slice: elapsed L2 cycles / requests that slice served, the slice saturated.
struct L2Cell {
  GlobalAtomicOp op = GlobalAtomicOp::kRedAddU32;
  AddressSpread spread = AddressSpread::kOneAddress;
  int warps_per_sm = 0;
  int addresses = 0;                    // distinct words the grid updates
  double requests_per_instruction = 0;  // L2 requests per warp instruction (lane merge)
  double sectors_per_request = 0;       // 32-byte sectors per request; 0: not measured (older tables)
  double hottest_slice_share = 0;       // requests at the hottest slice / all requests
  double cycles_per_request = 0;        // median over repeats
  double cycles_min = 0, cycles_max = 0;
  // (max - min) / median over repeats. Not "spread": that name is the address spread above.
  double repeat_spread = 0;
  double busy_fraction = 0;             // lts__d_atomic_input_cycles_active.max / elapsed.max
  double gpu_requests_per_cycle = 0;    // all slices' requests per L2 cycle
  // Law-sweep cells only (L2Section::law_cells; hot_addresses 0 in the spread cells): the
  // pattern, and what the law and Little's law read of it.
  int hot_addresses = 0;          // distinct words, taken round-robin by the active lanes
  bool packed = false;            // consecutive words (true) or one word per line
  int active_lanes = 32;          // lanes per warp issuing atomics
  bool dependent = false;         // one atomic in flight per thread
  int lanes_per_word = 1;         // neighbouring lanes of a warp on each word (word-lane cells)
  double duration_ns = 0;         // median launch time under the counters
  double requests = 0;            // all slices' requests of one launch (median)
  double requests_in_flight = 0;  // the most the grid can have outstanding (dependent cells)
};

// One point of the CAS retry sweep (docs/calibration.md, "The CAS retry sweep"): `warps`
// one-warp blocks, all resident, whose `active_lanes` lanes add 1 to one of `addresses` words
// (one per line; warp w takes word w % addresses) through a CAS loop, `updates_per_lane`
// successful CASes each. Attempts are counted by the lanes; the time is the launch's.
struct CasRetryPoint {
  int warps = 0;
  int active_lanes = 0;
  int addresses = 0;
  int updates_per_lane = 0;
  double duration_ns = 0;  // median over repeats
  double attempts = 0;     // CAS executions of all lanes (median over repeats)
  double updates = 0;      // warps x active_lanes x updates_per_lane
};

struct L2Section {
  int slices = 0;             // L2 slices the counters report (lts__cycles_elapsed sum / max)
  double l2_clock_mhz = 0;    // L2 cycles per microsecond during the calibration
  double wall_seconds = 0;    // time the L2 part of the sweep took
  std::vector<GlobalAtomicOp> ops;
  std::vector<AddressSpread> spreads;
  std::vector<int> warps_per_sm;
  std::vector<L2Cell> cells;  // complete: every (op, spread, warps_per_sm)
  // The law sweep (docs/calibration.md): hot addresses x layout x lanes, and dependent
  // one-lane chains for latency; empty in tables calibrated before 2026-12-02 (afternoon).
  std::vector<L2Cell> law_cells;
  // The CAS retry sweep; empty in tables calibrated before 2026-12-03 (afternoon).
  std::vector<CasRetryPoint> cas_retry;
  // The word-lane sweep (docs/calibration.md): lanes of one warp instruction on each word over
  // many lines, so no slice is hot; law-cell fields plus lanes_per_word. Kept apart from
  // law_cells, which the law is fitted on. Empty in tables calibrated before 2026-12-07.
  std::vector<L2Cell> word_lane_cells;

  const L2Cell* find(GlobalAtomicOp op, AddressSpread spread, int warps_per_sm) const;
  // The cell at the most warps per SM: the saturated service time of (op, spread).
  const L2Cell* saturated(GlobalAtomicOp op, AddressSpread spread) const;
};

}  // namespace atomq::calibration
