// The load latency floor (model/load_latency.hpp) and the table's load section it reads.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/load_latency.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::model {
namespace {

using calibration::LoadCell;
using calibration::LoadResidency;
using calibration::LoadSection;

LoadSection two_curves() {
  LoadSection s;
  // DRAM at 4 sectors: flat 400 ns to 16 warps, then 800 ns at 64 warps; L2 at 4 sectors: 200 ns.
  for (auto [w, ns] : {std::pair{1, 400.0}, {16, 400.0}, {64, 800.0}}) {
    LoadCell c;
    c.residency = LoadResidency::kDram;
    c.sectors_per_request = 4;
    c.warps_per_sm = w;
    c.round_trip_ns = c.round_trip_min_ns = c.round_trip_max_ns = ns;
    s.cells.push_back(c);
  }
  LoadCell l2;
  l2.residency = LoadResidency::kL2;
  l2.sectors_per_request = 4;
  l2.warps_per_sm = 1;
  l2.round_trip_ns = 200;
  s.cells.push_back(l2);
  LoadCell wide = s.cells.back();
  wide.sectors_per_request = 32;
  wide.round_trip_ns = 1000;
  s.cells.push_back(wide);
  return s;
}

TEST(LoadSection, InterpolatesOverSectorsInFlightOnTheNearestRequestSize) {
  const LoadSection s = two_curves();
  EXPECT_DOUBLE_EQ(*s.round_trip_ns(LoadResidency::kDram, 4, 10), 400.0);    // below the first cell
  EXPECT_DOUBLE_EQ(*s.round_trip_ns(LoadResidency::kDram, 4, 160), 600.0);   // halfway 64 .. 256 sectors
  EXPECT_DOUBLE_EQ(*s.round_trip_ns(LoadResidency::kDram, 5, 1000), 800.0);  // clamped; 5 sectors nearest 4
  EXPECT_DOUBLE_EQ(*s.round_trip_ns(LoadResidency::kL2, 6, 8), 200.0);       // 6 is nearer 4 than 32
  EXPECT_DOUBLE_EQ(*s.round_trip_ns(LoadResidency::kL2, 24, 8), 1000.0);     // 24 is nearer 32
  EXPECT_FALSE(LoadSection{}.round_trip_ns(LoadResidency::kL2, 4, 8));
}

KernelProfile streaming(double loads, double l2_hit_sectors) {
  KernelProfile p;
  p.device.sm_count = 2;
  p.device.max_warps_per_sm = 64;
  p.counters[metric::kGlobalLoadInst] = loads;
  p.counters[metric::kL1SectorHitRatePct] = 0;
  p.counters[metric::kL2ReadSectors] = 4 * loads;  // 4 sectors per request, all from L2
  p.counters[metric::kL2ReadSectorsHit] = l2_hit_sectors;
  p.counters[metric::kAchievedOccupancyPct] = 25;  // 16 resident warps per SM
  return p;
}

TEST(LoadLatencyFloor, LoadsPerWarpTimesTheRoundTripAtTheirResidency) {
  const LoadSection s = two_curves();
  // 3200 loads over 2 SMs x 16 warps: 100 per warp; 64 sectors in flight per SM, all DRAM: 400 ns.
  LoadLatencyFloor f = evaluate_load_latency(streaming(3200, 0), &s);
  ASSERT_TRUE(f.evaluated) << f.not_evaluated_reason;
  EXPECT_DOUBLE_EQ(f.loads_per_warp, 100.0);
  EXPECT_DOUBLE_EQ(f.sectors_in_flight_per_sm, 64.0);
  EXPECT_DOUBLE_EQ(*f.floor_ns, 100 * 400.0);
  // Half the sectors hit in L2 (200 ns): the mean round trip is 300 ns.
  f = evaluate_load_latency(streaming(3200, 2 * 3200), &s);
  EXPECT_DOUBLE_EQ(*f.floor_ns, 100 * 300.0);
  // L1 hits cost no round trip: 50% of the sectors hit, half the time.
  KernelProfile half_l1 = streaming(3200, 0);
  half_l1.counters[metric::kL1SectorHitRatePct] = 50;
  half_l1.counters[metric::kL2ReadSectors] = 2 * 3200;  // the misses' sectors: 4 per missing request
  f = evaluate_load_latency(half_l1, &s);
  EXPECT_DOUBLE_EQ(f.sectors_per_request, 4.0);
  EXPECT_DOUBLE_EQ(*f.floor_ns, 100 * 0.5 * 400.0);
}

TEST(LoadLatencyFloor, SaysWhichCounterIsMissingAndSkipsKernelsWithoutLoads) {
  const LoadSection s = two_curves();
  KernelProfile p = streaming(3200, 0);
  p.counters.erase(metric::kL2ReadSectorsHit);
  const LoadLatencyFloor f = evaluate_load_latency(p, &s);
  EXPECT_FALSE(f.evaluated);
  EXPECT_EQ(f.not_evaluated_reason,
            std::string("load latency floor: not evaluated: missing ") + metric::kL2ReadSectorsHit);
  const LoadLatencyFloor none = evaluate_load_latency(streaming(0, 0), &s);
  EXPECT_FALSE(none.evaluated);
  EXPECT_TRUE(none.not_evaluated_reason.empty());
  EXPECT_FALSE(evaluate_load_latency(streaming(3200, 0), nullptr).evaluated);
}

// The bundled table's section: both residencies, every request size, and the repeat spread of
// each cell within 10% (the 2026-12-04 run's worst cell read 6.8%).
TEST(LoadSection, BundledSectionCoversTheGridWithinItsSpread) {
  const calibration::ServiceTable t =
      calibration::load_service_table(std::string(ATOMQ_BUNDLED_TABLE_DIR) + "/GH100.json");
  ASSERT_FALSE(t.loads.empty());
  EXPECT_EQ(t.loads.cells.size(), 2u * 4u * 8u);
  for (const LoadCell& c : t.loads.cells) EXPECT_LE(c.repeat_spread, 0.10) << c.warps_per_sm;
  // Flat at few requests in flight, then rising: DRAM slower than L2 at every point.
  for (double sectors : {4.0, 8.0, 16.0, 32.0})
    for (double q : {4.0 * sectors, 64.0 * sectors})
      EXPECT_GT(*t.loads.round_trip_ns(LoadResidency::kDram, sectors, q),
                *t.loads.round_trip_ns(LoadResidency::kL2, sectors, q));
}

}  // namespace
}  // namespace atomq::model
