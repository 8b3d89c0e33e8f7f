// An L2 section and global-atomic counters built in code for the L2 queue tests, shaped by the
// H200 figures of docs/model.md ("The L2 queue"): one same-address u32 RED per L2 cycle at one
// slice, a same-address f32 RED every 3.5 cycles, 96 slices, a 1980 MHz L2 clock. Made-up cells
// chosen to match those figures, not a calibration.
#pragma once

#include <optional>

#include "atomq/calibration/l2_section.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::test {

inline double l2_fixture_cycles(GlobalAtomicOp op, AddressSpread spread) {
  using Op = GlobalAtomicOp;
  const bool cas = op == Op::kAtomCasU32 || op == Op::kAtomCasU64;
  switch (spread) {
    case AddressSpread::kOneAddress:
      return op == Op::kRedAddF32 ? 3.5 : op == Op::kRedAddU64 ? 2.0 : cas ? 4.0 : 1.0;
    case AddressSpread::kOneLine:  // a whole-line request of 32 lanes
      return cas ? 5.0 : 4.4;
    case AddressSpread::kManyLines:
      return op == Op::kRedAddF32 ? 1.9 : cas ? 2.2 : 0.9;
    default:
      return cas ? 5.6 : 4.8;
  }
}

inline calibration::L2Section make_h200_l2_section() {
  calibration::L2Section l2;
  l2.slices = 96;
  l2.l2_clock_mhz = 1980;
  l2.ops = enum_values<GlobalAtomicOp>();
  l2.spreads = enum_values<AddressSpread>();
  l2.warps_per_sm = {4, 64};
  for (GlobalAtomicOp op : l2.ops)
    for (AddressSpread spread : l2.spreads)
      for (int warps : l2.warps_per_sm) {
        calibration::L2Cell c;
        c.op = op;
        c.spread = spread;
        c.warps_per_sm = warps;
        c.addresses = spread == AddressSpread::kOneAddress ? 1
                      : spread == AddressSpread::kOneLine  ? 32
                      : spread == AddressSpread::kManyLines ? 1024
                                                            : 132 * 64 * 32;
        // Per-lane requests (1.5 per lane) except whole-line ones; one address puts 2/3 of them
        // on its slice (as the H200's 16.8 M of 25.2 M).
        const bool whole_lines = spread == AddressSpread::kOneLine || spread == AddressSpread::kDistinct;
        c.requests_per_instruction = whole_lines ? 1.5 : 48;
        c.hottest_slice_share = spread == AddressSpread::kOneAddress || spread == AddressSpread::kOneLine
                                    ? 0.667
                                    : spread == AddressSpread::kManyLines ? 1.0 / 64 : 1.0 / 96;
        c.cycles_per_request = l2_fixture_cycles(op, spread) * (warps == 4 ? 1.5 : 1.0);
        c.cycles_min = c.cycles_max = c.cycles_per_request;
        // Same-address float adds keep the slice's input busy only a third of the time.
        c.busy_fraction = spread == AddressSpread::kOneAddress && op == GlobalAtomicOp::kRedAddF32 ? 0.33 : 0.85;
        l2.cells.push_back(c);
      }
  return l2;
}

// A kernel's global atomics as the L2 counters see them.
struct L2Spec {
  double red = 0, red_hottest = 0;      // RED requests, all slices and the hottest slice
  double atom = 0, atom_hottest = 0, cas = 0;
  double elapsed_cycles = 0;            // lts__cycles_elapsed.max
  int slices = 96;
  std::optional<double> busy_fraction;  // lts__d_atomic_input_cycles_active.max / elapsed
  std::optional<double> warp_instructions;  // REDG + ATOMG
};

inline void add_l2_counters(model::KernelProfile& p, const L2Spec& s) {
  namespace m = model::metric;
  p.counters[m::kL2RedRequests] = s.red;
  p.counters[m::kL2RedRequestsMax] = s.red_hottest;
  p.counters[m::kL2AtomRequests] = s.atom;
  p.counters[m::kL2AtomRequestsMax] = s.atom_hottest;
  p.counters[m::kL2CasRequests] = s.cas;
  p.counters[m::kL2CyclesElapsedMax] = s.elapsed_cycles;
  p.counters[m::kL2CyclesElapsedSum] = s.elapsed_cycles * s.slices;
  if (s.busy_fraction) p.counters[m::kL2AtomicBusyMax] = *s.busy_fraction * s.elapsed_cycles;
  if (s.warp_instructions) p.counters[m::kGlobalRedInst] = *s.warp_instructions;
}

}  // namespace atomq::test
