// atomq: performance analyzer for the shared-memory atomic unit of NVIDIA GPUs.
// Only the CLI prints; the libraries log through spdlog (stderr).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <string>

#include "atomq/calibration/service_table.hpp"
#if ATOMQ_WITH_CUDA
#include "atomq/cuda/check.hpp"
#endif
#include "atomq/version.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("atomq"));
  spdlog::set_pattern("atomq: %^%l%$: %v");
  spdlog::set_level(spdlog::level::warn);

  CLI::App app{"atomq: analyzer for the shared-memory atomic unit of NVIDIA GPUs"};
  app.set_version_flag("--version",
                       std::string("atomq ") + atomq::kVersion + " (" + atomq::kGitCommit + ")");
  app.require_subcommand(1);
  int verbose = 0;
  app.add_flag("-v,--verbose", verbose, "log details to stderr (-vv: debug)");

  atomq::cli::CommandRunner selected;
  atomq::cli::add_devices_command(app, selected);
  atomq::cli::add_calibrate_command(app, selected);
  atomq::cli::add_table_command(app, selected);
  atomq::cli::add_metrics_command(app, selected);
  atomq::cli::add_analyze_command(app, selected);
  atomq::cli::add_hist_command(app, selected);
  atomq::cli::add_report_command(app, selected);
  atomq::cli::add_demo_command(app, selected);

  CLI11_PARSE(app, argc, argv);
  if (verbose == 1) spdlog::set_level(spdlog::level::info);
  if (verbose >= 2) spdlog::set_level(spdlog::level::debug);
  if (!selected) return atomq::cli::kExitError;

  try {
    return selected();
#if ATOMQ_WITH_CUDA
  } catch (const atomq::CudaError& e) {
    return atomq::cli::report_gpu_error(e);
#endif
  } catch (const atomq::calibration::TableError& e) {
    fmt::print(stderr, "atomq: invalid table: {}\n", e.what());
    return atomq::cli::kExitError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "atomq: {}\n", e.what());
    return atomq::cli::kExitError;
  }
}
