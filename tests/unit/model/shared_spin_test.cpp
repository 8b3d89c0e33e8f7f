// The table's shared CAS-spin section (calibration/shared_spin_section.hpp): its lookup, and the
// bundled cells against a recorded fix whose shared phase is such a loop.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/metric_names.hpp"
#include "atomq/model/service_time.hpp"

namespace atomq::model {
namespace {

using calibration::SharedSpinCell;
using calibration::SharedSpinSection;

SharedSpinCell cell(int lanes, int per_word, int warps, double cycles) {
  SharedSpinCell c;
  c.lanes_per_word = lanes;
  c.warps_per_word = per_word;
  c.warps_per_sm = warps;
  c.cycles_per_entry = c.cycles_min = c.cycles_max = cycles;
  return c;
}

TEST(SharedSpinSection, NearestLanesLogLogWarpsPerWordLinearWarpsPerSm) {
  SharedSpinSection s;
  for (const SharedSpinCell& c : {cell(1, 1, 16, 4), cell(1, 16, 16, 64), cell(1, 1, 48, 2), cell(1, 16, 48, 32),
                                  cell(32, 1, 16, 100)})
    s.cells.push_back(c);
  EXPECT_FALSE(s.cycles_per_entry(8, 1, 1, 16).has_value()) << "no 8-byte cells";
  EXPECT_DOUBLE_EQ(*s.cycles_per_entry(4, 1, 4, 16), 16.0) << "4 warps: log-log between 1 (4) and 16 (64)";
  EXPECT_DOUBLE_EQ(*s.cycles_per_entry(4, 1, 1, 32), 3.0) << "32 warps per SM: halfway between 16 and 48";
  EXPECT_DOUBLE_EQ(*s.cycles_per_entry(4, 1, 1, 64), 2.0) << "clamped to the most warps";
  EXPECT_DOUBLE_EQ(*s.cycles_per_entry(4, 1, 64, 16), 64.0) << "clamped to the most warps per word";
  EXPECT_DOUBLE_EQ(*s.cycles_per_entry(4, 24, 1, 16), 100.0) << "24 lanes: nearest calibrated is 32 (log scale)";
}

// PyTorch's bincount of 16 Mi float weights, a quarter of them on bin 0 (tests/unit/model/fixtures/
// third_party-scatter_add_hot-fix.json): 512-thread blocks, 3 per SM, a shared float add per value.
// A warp has 8 of its 32 lanes on bin 0 and all 16 warps of a block meet on it: the bundled cells
// at 8 lanes and 16 warps per word, 48 warps per SM, price its shared phase, and the fix's time is
// that phase (within 15%).
TEST(SharedSpinSection, BundledCellsPriceABincountFixsSharedPhase) {
  const auto table_path = bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100");
  ASSERT_TRUE(table_path);
  const calibration::ServiceTable table = calibration::load_service_table(*table_path);
  ASSERT_FALSE(table.shared_spin.empty());
  std::ifstream in(std::string(ATOMQ_MODEL_FIXTURE_DIR) + "/third_party-scatter_add_hot-fix.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  const KernelProfile fix = kernel_profile_from_json(doc.at("profile"), "fix");
  ASSERT_EQ(fix.launch.threads_per_block(), 512);
  ASSERT_EQ(fix.launch.max_active_blocks_per_sm, 3);
  const std::optional<double> cycles = table.shared_spin.cycles_per_entry(4, 8, 16, 48);
  ASSERT_TRUE(cycles);
  const double entries_per_sm = 16777216.0 / 32 / fix.device.sm_count;
  const double clock_mhz = fix.device.sm_clock_mhz > 0 ? fix.device.sm_clock_mhz : table.provenance.sm_clock_mhz_end;
  const double predicted_ns = entries_per_sm * *cycles / clock_mhz * 1000.0;
  const double measured_ns = *fix.counter(metric::kDurationNs);
  std::cout << "bincount fix's shared phase: " << predicted_ns / 1e3 << " us by the CAS-spin cells, measured "
            << measured_ns / 1e3 << " us\n";
  EXPECT_NEAR(predicted_ns / measured_ns, 1.0, 0.15) << predicted_ns << " ns against " << measured_ns;
}

}  // namespace
}  // namespace atomq::model
