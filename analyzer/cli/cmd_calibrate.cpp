// atomq calibrate: measure this GPU's service-time table and write it (JSON + CSV).
#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include "atomq/analyzer/cupti_device.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/common/atomic_file.hpp"
#include "atomq/cuda/device_query.hpp"
#include "atomq/calibration/calibrator.hpp"
#include "atomq/calibration/cas_retry_sweep.hpp"
#include "atomq/calibration/dsmem_sweep.hpp"
#include "atomq/calibration/launch_sweep.hpp"
#include "atomq/calibration/load_sweep.hpp"
#include "atomq/calibration/shared_spin_sweep.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/calibration/sweep_plan.hpp"
#include "atomq/microbench/atomic_stream.hpp"
#include "atomq/microbench/atomic_paths.hpp"
#include "atomq/microbench/cas_retry.hpp"
#include "atomq/microbench/l2_atomic_stream.hpp"
#include "atomq/microbench/launch_floor.hpp"
#include "atomq/microbench/load_chain.hpp"
#include "atomq/microbench/shared_spin.hpp"
#include "atomq/model/metric_names.hpp"
#include "atomq/model/table_selection.hpp"
#include "calibrate_all_devices.hpp"
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
  double l2_launch_ms = 0;  // 0: the grid's default
  bool no_progress = false;
  bool l2_first = false;
  bool all_devices = false;
};

// The options a per-device calibration of --all-devices repeats.
AllDevicesRequest all_devices_request(const CalibrateArgs& a) {
  AllDevicesRequest r;
  r.output_dir = a.output;
  if (a.quick) r.per_device_options.push_back("--quick");
  r.per_device_options.insert(r.per_device_options.end(), {"--repeats", std::to_string(a.repeats)});
  if (a.l2_launch_ms > 0) r.per_device_options.insert(r.per_device_options.end(), {"--l2-launch-ms", std::to_string(a.l2_launch_ms)});
  return r;
}

// Each launch of a sweep's batch as one profiled range: user replay (the launches repeated once
// per pass), else kernel replay where that failed (`repeatable` then stays off when given).
std::vector<model::KernelProfile> profile_batch(int device, std::vector<std::string> metrics,
                                                const std::vector<std::function<void()>>& launches, const char* what,
                                                bool* repeatable = nullptr) {
  analyzer::ProfilerOptions options;
  options.device = device;
  options.metrics = std::move(metrics);
  auto work = [&launches] {
    for (const auto& launch : launches) launch();
  };
  if (!repeatable || *repeatable) {
    try {
      return analyzer::profile_repeatable(work, launches.size(), options);
    } catch (const std::exception& e) {
      spdlog::warn("{} in user replay failed ({}); using kernel replay", what, e.what());
      if (repeatable) *repeatable = false;
    }
  }
  return analyzer::profile_launches(work, options);
}

// The L2 sweep's counters through the collector: one range per launch. The sweep's launches
// can simply be repeated once per pass (user replay), which costs a fraction of kernel replay's
// memory save and restore per launch; kernel replay remains the fallback (calibration cannot
// link the collector: tools/check_layering.py).
cal::L2CounterProbe l2_counter_probe(int device) {
  namespace metric = model::metric;
  return [device](const cal::L2LaunchBatch& launches) {
    static bool repeatable = true;  // off after the first failure: kernel replay from then on
    const std::vector<model::KernelProfile> profiles = profile_batch(
        device,
        {metric::kL2RedRequests, metric::kL2RedRequestsMax, metric::kL2AtomRequests, metric::kL2AtomRequestsMax,
         metric::kL2CyclesElapsedMax, metric::kL2CyclesElapsedSum, metric::kL2AtomicBusyMax, metric::kDurationNs,
         metric::kL2RedSectors, metric::kL2AtomSectors},
        launches, "the L2 sweep's counters", &repeatable);
    std::vector<cal::L2Counters> out;
    for (const model::KernelProfile& p : profiles) {
      auto value = [&p](const char* name) { return p.counter(name).value_or(0.0); };
      out.push_back(cal::L2Counters{value(metric::kL2RedRequests), value(metric::kL2RedRequestsMax),
                                    value(metric::kL2AtomRequests), value(metric::kL2AtomRequestsMax),
                                    value(metric::kL2CyclesElapsedMax), value(metric::kL2CyclesElapsedSum),
                                    value(metric::kL2AtomicBusyMax), value(metric::kDurationNs),
                                    value(metric::kL2RedSectors), value(metric::kL2AtomSectors)});
    }
    return out;
  };
}

// The DSMEM sweep's counters, through the collector as the L2 sweep's (one range per launch).
constexpr double kDsmemLaunchMs = 2.0;  // long enough that the cluster syncs and the bins' flush are noise

cal::DsmemCounterProbe dsmem_counter_probe(int device) {
  namespace metric = model::metric;
  return [device](const cal::DsmemLaunchBatch& launches) {
    const std::vector<model::KernelProfile> profiles = profile_batch(
        device,
        {metric::kDsmemAtomRequests, metric::kDsmemRedAsyncRequests, metric::kDsmemRequestBusyMax,
         metric::kCyclesActiveMax, metric::kCyclesActiveAvg, metric::kDurationNs},
        launches, "the DSMEM sweep's counters");
    std::vector<cal::DsmemCounters> out;
    for (const model::KernelProfile& p : profiles) {
      auto value = [&p](const char* name) { return p.counter(name).value_or(0.0); };
      out.push_back(cal::DsmemCounters{value(metric::kDsmemAtomRequests) + value(metric::kDsmemRedAsyncRequests),
                                       value(metric::kDsmemRequestBusyMax), value(metric::kCyclesActiveMax),
                                       value(metric::kCyclesActiveAvg), value(metric::kDurationNs)});
    }
    return out;
  };
}

// The launch floor's durations through the collector, as every analyzed kernel is timed.
cal::DurationProbe duration_probe(int device) {
  return [device](const cal::LaunchBatch& launches) {
    const std::vector<model::KernelProfile> profiles =
        profile_batch(device, {model::metric::kDurationNs}, launches, "the launch floor's durations");
    std::vector<double> out;
    for (const model::KernelProfile& p : profiles) out.push_back(p.counter(model::metric::kDurationNs).value_or(0.0));
    return out;
  };
}

constexpr double kLoadLaunchMs = 1.0;  // a round trip is under 2 us: hundreds of steps per launch

// The L2 cells' CSV beside the main one: FILE.csv -> FILE.l2.csv.
std::string l2_csv_path(const std::string& csv) {
  std::filesystem::path p(csv);
  return p.replace_extension(".l2" + p.extension().string()).string();
}

int run_calibrate(const CalibrateArgs& a) {
  if (a.all_devices) {
    if (!a.csv.empty()) throw UsageError("--csv: not with --all-devices (each table's CSV goes beside it)");
    if (a.l2_first) throw UsageError("--l2-first: not with --all-devices (it gives --l2-first to every other GPU)");
    return calibrate_all_devices(all_devices_request(a));
  }
  const int count = device_count();
  if (a.device >= count) {
    fmt::print(stderr, "atomq: --device {} out of range: {} device(s) visible\n", a.device, count);
    return kExitError;
  }
  microbench::AtomicStreamBench bench(a.device);
  microbench::L2AtomicStreamBench l2_bench(a.device);
  DeviceInfo probed = bench.device();
  analyzer::probe_cupti_device(a.device, probed);
  cal::SweepPlan plan = cal::make_sweep_plan(a.quick ? cal::GridSize::kQuick : cal::GridSize::kFull,
                                             bench.device().max_warps_per_sm);
  plan.repeats = a.repeats;
  if (a.l2_launch_ms > 0) plan.l2.target_launch_ms = a.l2_launch_ms;
  // Without -o the table is installed where analyze and report look for this chip's table.
  std::string output = a.output;
  if (output.empty() && !probed.chip.empty()) output = model::user_table_path(probed.chip);
  if (output.empty())
    output = fmt::format("atomq-table-{}-{}.json", probed.chip.empty() ? "unknown" : probed.chip, plan.name);
  if (const auto dir = std::filesystem::path(output).parent_path(); !dir.empty())
    std::filesystem::create_directories(dir);
  std::string csv = a.csv;
  if (csv.empty()) csv = std::filesystem::path(output).replace_extension(".csv").string();

  ProgressBar bar(!a.no_progress);
  cal::CalibrationOptions options;
  options.chip = probed.chip;
  options.progress = [&bar](const cal::CalibrationProgress& p) { bar.update(p); };
  options.l2_counters = l2_counter_probe(a.device);
  options.l2_sweep_first = a.l2_first;
  cal::ServiceTable table = cal::run_calibration(bench, l2_bench, plan, options);
  bar.finish();
  const auto retry_begin = std::chrono::steady_clock::now();
  microbench::CasRetryBench retry_bench(a.device);
  table.l2.cas_retry = cal::run_cas_retry_sweep(retry_bench, cal::make_cas_retry_plan(retry_bench.max_resident_warps()),
                                                [](const std::string& label) { spdlog::debug("{}", label); });
  microbench::AtomicPathBench path_bench(a.device);
  table.dsmem = cal::run_dsmem_sweep(path_bench, a.repeats, kDsmemLaunchMs, dsmem_counter_probe(a.device));
  table.dsmem.created_utc = table.provenance.created_utc;
  table.dsmem.atomq_commit = table.provenance.atomq_commit;
  microbench::LoadChainBench load_bench(a.device);
  table.loads = cal::run_load_sweep(load_bench, a.repeats, kLoadLaunchMs);
  table.loads.created_utc = table.provenance.created_utc;
  table.loads.atomq_commit = table.provenance.atomq_commit;
  microbench::SharedSpinBench spin_bench(a.device);
  table.shared_spin = cal::run_shared_spin_sweep(spin_bench, a.repeats);
  table.shared_spin.created_utc = table.provenance.created_utc;
  table.shared_spin.atomq_commit = table.provenance.atomq_commit;
  microbench::LaunchFloorBench launch_bench(a.device);
  table.launch = cal::run_launch_sweep(launch_bench, a.repeats, duration_probe(a.device));
  table.launch.created_utc = table.provenance.created_utc;
  table.launch.atomq_commit = table.provenance.atomq_commit;
  // The table's wall time is the whole calibration's, the retry, DSMEM, load, spin and launch sweeps included.
  table.provenance.wall_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - retry_begin).count();

  cal::save_service_table(table, output);
  write_file_atomically(csv, cal::service_table_csv(table));
  const std::string l2_csv = l2_csv_path(csv);
  write_file_atomically(l2_csv, cal::service_table_l2_csv(table));
  print_table_summary(stdout, table);
  fmt::print("\nwrote {}, {} and {}\n", output, csv, l2_csv);
  if (!probed.chip.empty() && output == model::user_table_path(probed.chip))
    fmt::print("installed as this machine's {} table: atomq analyze and report use it for {} GPUs "
               "(unless --table or $ATOMQ_TABLE say otherwise)\n", probed.chip, probed.chip);
  else
    fmt::print("not installed: pass --table {} to analyze and report (without -o, calibrate installs it)\n", output);
  return kExitOk;
}

}  // namespace

void add_calibrate_command(CLI::App& app, CommandRunner& selected) {
  auto [sub, args] = add_command(app, selected, "calibrate", "measure this GPU's service-time table S(n,e,c)",
                                 run_calibrate);
  sub->add_flag("--quick", args->quick, "small grid (seconds) instead of the full one");
  sub->add_option("--device", args->device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  sub->add_option("-o,--output", args->output,
                  "table file (JSON; default: installed as this chip's table, where analyze and report look: "
                  "$XDG_DATA_HOME or ~/.local/share, then atomq/tables/CHIP.json)");
  sub->add_option("--csv", args->csv,
                  "CSV export (default: the output path with .csv; the L2 cells go to FILE.l2.csv)");
  sub->add_option("--repeats", args->repeats, "measured repeats per cell (median and spread)")
      ->check(CLI::Range(1, 101));
  sub->add_option("--l2-launch-ms", args->l2_launch_ms,
                  "length of each L2 cell's launch in ms (default: 1 for the full grid, 0.5 for --quick)")
      ->check(CLI::Range(0.1, 100.0));
  sub->add_flag("--no-progress", args->no_progress, "no progress bar");
  sub->add_flag("--l2-first", args->l2_first,
                "the L2 sweep before the shared sweep (--all-devices gives it to every other GPU, so that the "
                "GPUs' CUPTI-profiled sweeps do not coincide)");
  sub->add_flag("--all-devices", args->all_devices,
                "calibrate every GPU of the host side by side, one table per GPU (-o: their folder; default: "
                "installed as each GPU's own table, CHIP-UUID.json beside the chip's), and compare identical GPUs")
      ->excludes("--device");
}

}  // namespace atomq::cli
