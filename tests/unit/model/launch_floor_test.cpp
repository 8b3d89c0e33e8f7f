// The launch floor (calibration/launch_section.hpp, model/src/launch_floor.cpp): the section's
// lookup, a what-if floored at an empty kernel of its grid, and a GPU's measured floor against
// the kernels recorded on that GPU (none ran faster than the floor of its grid).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/metric_names.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/model/table_selection.hpp"

namespace atomq::model {
namespace {

using calibration::LaunchCell;
using calibration::LaunchSection;

LaunchCell cell(long long blocks, int threads, double ns) {
  LaunchCell c;
  c.blocks = blocks;
  c.threads_per_block = threads;
  c.duration_ns = c.duration_min_ns = c.duration_max_ns = ns;
  return c;
}

TEST(LaunchSection, NearestBlockSizeLinearBetweenBlockCountsLastSlopeBeyond) {
  LaunchSection s;
  EXPECT_FALSE(s.floor_ns(10, 256).has_value());
  for (const LaunchCell& c : {cell(1, 256, 1000), cell(100, 256, 2000), cell(400, 256, 5000), cell(1, 1024, 9000)})
    s.cells.push_back(c);
  EXPECT_DOUBLE_EQ(*s.floor_ns(1, 256), 1000.0);
  EXPECT_DOUBLE_EQ(*s.floor_ns(50.5, 256), 1500.0) << "halfway between 1 and 100 blocks";
  EXPECT_DOUBLE_EQ(*s.floor_ns(700, 256), 8000.0) << "beyond 400 blocks: 10 ns per block as from 100 to 400";
  EXPECT_DOUBLE_EQ(*s.floor_ns(1, 128), 1000.0) << "128 threads: 256 is nearer than 1024 (log scale)";
  EXPECT_DOUBLE_EQ(*s.floor_ns(1000, 1024), 9000.0) << "one cell of that size: its duration";
}

const std::string kRuns = ATOMQ_VALIDATION_RUNS_DIR;

KernelProfile recorded(const std::string& case_name, std::size_t kernel) {
  const std::string path = kRuns + "/" + case_name + ".json";
  std::ifstream in(path);
  return kernel_profile_from_json(nlohmann::json::parse(in).at("kernels").at(kernel).at("profile"), path);
}

calibration::ServiceTable bundled_table() {
  const auto path = bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100");
  EXPECT_TRUE(path);
  return calibration::load_service_table(*path);
}

const WhatIf* combine(const KernelAnalysis& a) {
  for (const Finding& f : a.findings)
    for (const WhatIf& w : f.what_ifs)
      if (w.id == WhatIfId::kCombineBeforeCas) return &w;
  return nullptr;
}

// The float max into one word: combined per block, its CAS storm is 256 loops of which few
// change the word, which the retry law prices far under any launch. A flat floor of 2 us caps
// the what-if at the baseline's time over 2 us at both ends, and says so; switched off, it does not.
TEST(LaunchFloor, CapsACollapsedCasStormAtTheEmptyKernelsTime) {
  calibration::ServiceTable table = bundled_table();
  table.launch = LaunchSection{};
  table.launch.cells = {cell(1, 256, 2000), cell(1000, 256, 2000)};
  const KernelProfile p = recorded("cas_float_max_one_address", 0);
  // The floor applies to kernels of the table's GPU only: this synthetic floor is the recording's.
  table.provenance.device.name = p.device.name;
  const double duration = *p.counter(metric::kDurationNs);
  const KernelAnalysis floored = analyze(p, ServiceTimeModel(table));
  const WhatIf* w = combine(floored);
  ASSERT_NE(w, nullptr);
  EXPECT_DOUBLE_EQ(w->interval.high, duration / 2000.0);
  EXPECT_LE(w->interval.low, w->interval.high);
  EXPECT_DOUBLE_EQ(*w->predicted_time_ns, 2000.0);
  EXPECT_NE(w->interval.basis.find("empty kernel of this grid"), std::string::npos) << w->interval.basis;

  Rules off;
  off.switch_off(ModelTerm::kLaunchFloor);
  const KernelAnalysis without = analyze(p, ServiceTimeModel(table), off);
  const WhatIf* unfloored = combine(without);
  ASSERT_NE(unfloored, nullptr);
  EXPECT_GT(unfloored->interval.high, duration / 2000.0) << "the law alone prices it under the launch";

  // Another GPU's floor is not this one's: a kernel run elsewhere keeps its what-ifs, with a note.
  KernelProfile elsewhere = p;
  elsewhere.device.name = table.provenance.device.name + " (another part)";
  const KernelAnalysis other = analyze(elsewhere, ServiceTimeModel(table));
  ASSERT_NE(combine(other), nullptr);
  EXPECT_GT(combine(other)->interval.high, duration / 2000.0);
  EXPECT_TRUE(std::any_of(other.notes.begin(), other.notes.end(),
                          [](const std::string& n) { return n.find("launch floor: not applied") != std::string::npos; }));
}

// The floor is an empty kernel's time on the GPU that measured it, so no kernel that GPU ran
// may beat it: every held-out run recorded on the GPU of round 5's baselines table (its own
// calibration) and that day's live one-word CAS loops (whose ablations and fixes take 2.9-6 us)
// are checked against that table's floor of their grid; the nearest is printed. (The
// bundled GH100 table, an H200's, has no launch section: the H200's recorded 1056 x 256 kernels
// ran in 2.37-2.46 us, under the 2.56 us this H100 measured for an empty one: a per-GPU figure.)
TEST(LaunchFloor, NoKernelRecordedOnTheCalibratedGpuRanFasterThanItsFloor) {
  const std::string held_out = kRuns + "/../held_out";
  const calibration::ServiceTable table = calibration::load_service_table(held_out + "/round5/baselines/table.json");
  ASSERT_FALSE(table.launch.empty());
  int checked = 0;
  double closest = 0;
  std::string closest_name;
  std::vector<std::filesystem::directory_entry> files;
  for (const std::string& dir : {held_out, kRuns + "/../live_runs/2026-12-06-h100-launch"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) files.push_back(entry);
  for (const auto& entry : files) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".json" || path.find(".timings.") != std::string::npos ||
        path.find("predictions") != std::string::npos || path.find("summary") != std::string::npos ||
        entry.path().filename() == "table.json")
      continue;
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in);
    if (!doc.contains("kernels")) continue;
    for (const auto& k : doc.at("kernels")) {
      const KernelProfile p = kernel_profile_from_json(k.at("profile"), path);
      const auto duration = p.counter(metric::kDurationNs);
      if (!duration || p.launch.blocks() <= 0 || p.device.name != table.provenance.device.name) continue;
      const double floor = *table.launch.floor_ns(static_cast<double>(p.launch.blocks()),
                                                  static_cast<double>(p.launch.threads_per_block()));
      EXPECT_LE(floor, *duration) << path << " " << p.kernel_name << ": " << p.launch.blocks() << " x "
                                  << p.launch.threads_per_block();
      if (checked == 0 || floor / *duration > closest) closest = floor / *duration, closest_name = p.kernel_name;
      ++checked;
    }
  }
  EXPECT_GE(checked, 8);
  std::cout << checked << " kernels recorded on the " << table.provenance.device.name
            << "; the nearest to its floor: " << closest_name << " at " << closest << " of its time\n";
}

}  // namespace
}  // namespace atomq::model
