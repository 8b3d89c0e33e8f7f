// atomq calibrate: measure this GPU's service-time table and write it (JSON + CSV).
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "atomq/analyzer/cupti_device.hpp"
#include "atomq/common/atomic_file.hpp"
#include "atomq/cuda/device_query.hpp"
#include "atomq/calibration/calibrator.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/calibration/sweep_plan.hpp"
#include "atomq/microbench/atomic_stream.hpp"
#include "commands.hpp"
#include "terminal.hpp"

namespace atomq::cli {

namespace {

namespace cal = atomq::calibration;

struct CalibrateArgs {
  bool quick = false;
  int device = 0;
  std::string output;
  std::string csv;
  int repeats = 5;
  bool no_progress = false;
};

int run_calibrate(const CalibrateArgs& a) {
  const int count = device_count();
  if (a.device >= count) {
    fmt::print(stderr, "atomq: --device {} out of range: {} device(s) visible\n", a.device, count);
    return kExitError;
  }
  microbench::AtomicStreamBench bench(a.device);
  DeviceInfo probed = bench.device();
  analyzer::probe_cupti_device(a.device, probed);
  cal::SweepPlan plan = cal::make_sweep_plan(a.quick ? cal::GridSize::kQuick : cal::GridSize::kFull,
                                             bench.device().max_warps_per_sm);
  plan.repeats = a.repeats;
  std::string output = a.output;
  if (output.empty())
    output = fmt::format("atomq-table-{}-{}.json", probed.chip.empty() ? "unknown" : probed.chip, plan.name);
  std::string csv = a.csv;
  if (csv.empty()) csv = std::filesystem::path(output).replace_extension(".csv").string();

  ProgressBar bar(!a.no_progress);
  cal::CalibrationOptions options;
  options.chip = probed.chip;
  options.progress = [&bar](const cal::CalibrationProgress& p) { bar.update(p); };
  const cal::ServiceTable table = cal::run_calibration(bench, plan, options);
  bar.finish();

  cal::save_service_table(table, output);
  write_file_atomically(csv, cal::service_table_csv(table));
  print_table_summary(stdout, table);
  fmt::print("\nwrote {} and {}\n", output, csv);
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& app, CommandRunner& selected) {
  auto [sub, args] = add_command(app, selected, "calibrate", "measure this GPU's service-time table S(n,e,c)",
                                 run_calibrate);
  sub->add_flag("--quick", args->quick, "small grid (seconds) instead of the full one");
  sub->add_option("--device", args->device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  sub->add_option("-o,--output", args->output,
                  "table file (JSON; default atomq-table-CHIP-GRID.json)");
  sub->add_option("--csv", args->csv, "CSV export (default: the output path with .csv)");
  sub->add_option("--repeats", args->repeats, "measured repeats per cell (median and spread)")
      ->check(CLI::Range(1, 101));
  sub->add_flag("--no-progress", args->no_progress, "no progress bar");
}

}  // namespace atomq::cli
