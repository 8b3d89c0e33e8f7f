// Global-atomic counters built in code for the L2 queue tests; the L2 section they are read
// against is the synthetic one of table_fixture.hpp.
#pragma once

#include <optional>

#include "atomq/calibration/l2_section.hpp"
#include "table_fixture.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::test {

// A kernel's global atomics as the L2 counters see them.
struct L2Spec {
  double red = 0, red_hottest = 0;      // RED requests, all slices and the hottest slice
  double atom = 0, atom_hottest = 0, cas = 0;
  double elapsed_cycles = 0;            // lts__cycles_elapsed.max
  int slices = 96;
  std::optional<double> busy_fraction;  // lts__d_atomic_input_cycles_active.max / elapsed
  std::optional<double> warp_instructions;  // REDG + ATOMG
  double sectors_per_request = 0;       // lts__t_sectors_op_{atom,red} / requests (0: not read)
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
  if (s.sectors_per_request > 0) {
    p.counters[m::kL2RedSectors] = s.red * s.sectors_per_request;
    p.counters[m::kL2AtomSectors] = s.atom * s.sectors_per_request;
  }
}

}  // namespace atomq::test
