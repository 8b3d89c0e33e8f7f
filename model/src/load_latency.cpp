// The load latency floor (load_latency.hpp).
#include "atomq/model/load_latency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "atomq/model/metric_names.hpp"

namespace atomq::model {

LoadLatencyFloor evaluate_load_latency(const KernelProfile& p, const calibration::LoadSection* section) {
  LoadLatencyFloor f;
  const std::optional<double> loads = p.counter(metric::kGlobalLoadInst);
  if (loads && !(*loads > 0)) return f;  // no global loads: nothing to say
  const char* missing = !loads                                    ? metric::kGlobalLoadInst
                        : !p.counter(metric::kL1SectorHitRatePct) ? metric::kL1SectorHitRatePct
                        : !p.counter(metric::kL2ReadSectors)      ? metric::kL2ReadSectors
                        : !p.counter(metric::kL2ReadSectorsHit)   ? metric::kL2ReadSectorsHit
                        : !p.counter(metric::kAchievedOccupancyPct) ? metric::kAchievedOccupancyPct
                                                                    : nullptr;
  if (missing) {
    f.not_evaluated_reason = fmt::format("load latency floor: not evaluated: missing {}", missing);
    return f;
  }
  if (!section || section->empty()) {
    f.not_evaluated_reason = "load latency floor: the table has no load round-trip section (calibrated before the "
                             "load sweep): run atomq calibrate";
    return f;
  }
  const int sms = p.device.sm_count;
  const double slots = p.device.max_warps_per_sm > 0 ? p.device.max_warps_per_sm : 64;
  f.resident_warps_per_sm = p.counter_or_zero(metric::kAchievedOccupancyPct) / 100.0 * slots;
  if (sms <= 0 || !(f.resident_warps_per_sm > 0)) {
    f.not_evaluated_reason = "load latency floor: no SM count or resident warps";
    return f;
  }
  f.load_instructions = *loads;
  f.l1_hit = std::clamp(p.counter_or_zero(metric::kL1SectorHitRatePct) / 100.0, 0.0, 1.0);
  const double l2_sectors = p.counter_or_zero(metric::kL2ReadSectors);
  f.l2_hit = l2_sectors > 0 ? std::clamp(p.counter_or_zero(metric::kL2ReadSectorsHit) / l2_sectors, 0.0, 1.0) : 1.0;
  const double missing_l1 = std::max(1.0 - f.l1_hit, 1e-3);
  f.sectors_per_request = std::clamp(l2_sectors / (f.load_instructions * missing_l1), 1.0, 32.0);
  f.sectors_in_flight_per_sm = f.resident_warps_per_sm * f.sectors_per_request * missing_l1;
  using calibration::LoadResidency;
  const auto l2 = section->round_trip_ns(LoadResidency::kL2, f.sectors_per_request, f.sectors_in_flight_per_sm);
  const auto dram = section->round_trip_ns(LoadResidency::kDram, f.sectors_per_request, f.sectors_in_flight_per_sm);
  if (!l2 || !dram) {
    f.not_evaluated_reason = "load latency floor: the table's load section lacks the L2 or the DRAM cells";
    return f;
  }
  f.round_trip_ns = (1.0 - f.l1_hit) * (f.l2_hit * *l2 + (1.0 - f.l2_hit) * *dram);
  f.loads_per_warp = f.load_instructions / (sms * f.resident_warps_per_sm);
  f.floor_ns = f.loads_per_warp * f.round_trip_ns;
  f.evaluated = true;
  f.basis = fmt::format(
      "{:.3g} LDG instructions per resident warp ({:.1f} warps per SM), one in flight each, at {:.0f} ns per "
      "round trip ({:.1f} sectors per request, {:.0f} in flight per SM; L1 hit {:.0f}%, L2 hit {:.0f}% of the rest, "
      "L2 {:.0f} ns, DRAM {:.0f} ns)",
      f.loads_per_warp, f.resident_warps_per_sm, f.round_trip_ns, f.sectors_per_request, f.sectors_in_flight_per_sm,
      100.0 * f.l1_hit, 100.0 * f.l2_hit, *l2, *dram);
  return f;
}

}  // namespace atomq::model
