// atomq: performance analyzer for the shared-memory atomic unit of NVIDIA GPUs.
// Only this file (and terminal.cpp) print; the libraries log through spdlog.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "atomq/analyzer/cupti_device.hpp"
#include "atomq/calibration/calibrator.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/calibration/sweep_plan.hpp"
#include "atomq/cuda_check.hpp"
#include "atomq/microbench/atomic_stream.hpp"
#include "atomq/version.hpp"
#include "terminal.hpp"

namespace {

namespace cal = atomq::calibration;
namespace mb = atomq::microbench;

// Exit codes
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitNoGpu = 3;

std::string version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// One line, no stack trace: what went wrong with the GPU setup.
int report_no_gpu(const atomq::CudaError& e) {
  if (e.api() == "CUDA runtime" && (e.code() == cudaErrorInsufficientDriver ||
                                    e.code() == cudaErrorNoDevice ||
                                    e.code() == cudaErrorInitializationError)) {
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: {} ({})\n",
               e.code() == cudaErrorInsufficientDriver ? "no NVIDIA driver found (libcuda.so.1 missing or too old)"
               : e.code() == cudaErrorNoDevice        ? "the driver sees no CUDA device"
                                                      : "the CUDA driver failed to initialize",
               e.name());
    return kExitNoGpu;
  }
  fmt::print(stderr, "atomq: {}\n", e.what());
  return kExitError;
}

int cmd_devices() {
  int count = 0;
  try {
    count = mb::device_count();
  } catch (const atomq::CudaError& e) {
    return report_no_gpu(e);
  }
  if (count == 0) {
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: the driver sees no CUDA device\n");
    return kExitNoGpu;
  }
  for (int i = 0; i < count; ++i) {
    const mb::DeviceSummary d = mb::describe_device(i);
    const atomq::analyzer::CuptiDeviceInfo cupti = atomq::analyzer::probe_cupti_device(i);
    fmt::print("device {}: {}\n", i, d.name);
    fmt::print("  chip                 {}\n", cupti.chip.empty() ? "unknown" : cupti.chip);
    fmt::print("  compute capability   {}.{}\n", d.cc_major, d.cc_minor);
    fmt::print("  SMs                  {}\n", d.sm_count);
    fmt::print("  max warps per SM     {}\n", d.max_warps_per_sm);
    fmt::print("  shared memory per SM {} KiB ({} KiB per block opt-in)\n", d.shared_mem_per_sm / 1024,
               d.shared_mem_per_block_optin / 1024);
    fmt::print("  SM clock (max)       {} MHz\n", d.clock_khz / 1000);
    fmt::print("  memory clock         {} MHz\n", d.memory_clock_khz / 1000);
    fmt::print("  driver / runtime     CUDA {} / CUDA {}\n", version_string(d.driver_version),
               version_string(d.runtime_version));
    fmt::print("  hardware counters    {}{}\n", atomq::analyzer::to_string(cupti.counters),
               cupti.detail.empty() ? "" : " - " + cupti.detail);
  }
  return kExitOk;
}

struct CalibrateArgs {
  bool quick = false;
  int device = 0;
  std::string output;
  std::string csv;
  int repeats = 5;
  bool no_progress = false;
};

int cmd_calibrate(const CalibrateArgs& a) {
  try {
    const int count = mb::device_count();
    if (a.device < 0 || a.device >= count) {
      fmt::print(stderr, "atomq: --device {} out of range: {} device(s) visible\n", a.device, count);
      return kExitError;
    }
    mb::AtomicStreamBench bench(a.device);
    const auto cupti = atomq::analyzer::probe_cupti_device(a.device);
    cal::SweepPlan plan = cal::make_sweep_plan(a.quick ? cal::GridSize::kQuick : cal::GridSize::kFull,
                                               bench.device().max_warps_per_sm);
    plan.repeats = a.repeats;
    std::string output = a.output;
    if (output.empty())
      output = "atomq-table-" + (cupti.chip.empty() ? std::string("unknown") : cupti.chip) + "-" +
               plan.name + ".json";
    std::string csv = a.csv;
    if (csv.empty()) csv = std::filesystem::path(output).replace_extension(".csv").string();

    atomq::cli::ProgressBar bar(!a.no_progress);
    cal::CalibrationOptions options;
    options.chip = cupti.chip;
    options.progress = [&](const cal::CalibrationProgress& p) { bar.update(p); };
    const cal::ServiceTable table = cal::run_calibration(bench, plan, options);
    bar.finish();

    cal::save_service_table(table, output);
    cal::write_file_atomically(csv, cal::service_table_csv(table));
    atomq::cli::print_table_summary(stdout, table);
    fmt::print("\nwrote {} and {}\n", output, csv);
    return kExitOk;
  } catch (const atomq::CudaError& e) {
    return report_no_gpu(e);
  }
}

int cmd_table_show(const std::string& path) {
  const cal::ServiceTable t = cal::load_service_table(path);
  atomq::cli::print_table_summary(stdout, t);
  return kExitOk;
}

int cmd_table_validate(const std::string& path) {
  const cal::ServiceTable t = cal::load_service_table(path);
  fmt::print("{}: valid atomq service table v{} ({} cells, {} controls, {} {})\n", path, t.version,
             t.cells.size(), t.controls.size(), t.provenance.gpu_name, t.provenance.chip);
  return kExitOk;
}

int cmd_table_csv(const std::string& path, const std::string& out) {
  const cal::ServiceTable t = cal::load_service_table(path);
  if (out.empty() || out == "-") {
    fmt::print("{}", cal::service_table_csv(t));
  } else {
    cal::write_file_atomically(out, cal::service_table_csv(t));
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_color_mt("atomq");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("atomq: %^%l%$: %v");
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"atomq: analyzer for the shared-memory atomic unit of NVIDIA GPUs"};
  app.set_version_flag("--version", std::string("atomq ") + atomq::kVersion + " (" + atomq::kGitCommit + ")");
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "log progress details to stderr");

  auto* devices = app.add_subcommand("devices", "list visible GPUs and whether counters can be read");

  CalibrateArgs cargs;
  auto* calibrate = app.add_subcommand("calibrate", "measure this GPU's service-time table S(n,e,c)");
  calibrate->add_flag("--quick", cargs.quick, "small grid (seconds) instead of the full one");
  calibrate->add_option("--device", cargs.device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  calibrate->add_option("-o,--output", cargs.output, "table file (JSON; default atomq-table-CHIP-GRID.json)");
  calibrate->add_option("--csv", cargs.csv, "CSV export (default: the output path with .csv)");
  calibrate->add_option("--repeats", cargs.repeats, "measured repeats per cell (median, spread)")
      ->check(CLI::Range(1, 101));
  calibrate->add_flag("--no-progress", cargs.no_progress, "no progress bar");

  auto* table = app.add_subcommand("table", "inspect a service-time table file");
  table->require_subcommand(1);
  std::string table_path, csv_out;
  auto* show = table->add_subcommand("show", "provenance and a summary of the key cells");
  show->add_option("file", table_path, "table JSON")->required();
  auto* validate = table->add_subcommand("validate", "check a table file, naming any bad field");
  validate->add_option("file", table_path, "table JSON")->required();
  auto* csv = table->add_subcommand("csv", "export a table as CSV");
  csv->add_option("file", table_path, "table JSON")->required();
  csv->add_option("-o,--output", csv_out, "CSV file (default stdout)");

  CLI11_PARSE(app, argc, argv);
  if (verbose) spdlog::set_level(spdlog::level::info);

  try {
    if (*devices) return cmd_devices();
    if (*calibrate) return cmd_calibrate(cargs);
    if (*show) return cmd_table_show(table_path);
    if (*validate) return cmd_table_validate(table_path);
    if (*csv) return cmd_table_csv(table_path, csv_out);
  } catch (const cal::TableError& e) {
    fmt::print(stderr, "atomq: invalid table: {}\n", e.what());
    return kExitError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "atomq: {}\n", e.what());
    return kExitError;
  }
  return kExitError;
}
