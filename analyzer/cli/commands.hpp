// Subcommands of the atomq CLI. Each add_*_command registers its options on `app` and, when
// the user selects it, stores the function to run in `selected`. One file per command.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>

namespace atomq {
class CudaError;
}

namespace atomq::cli {

using CommandRunner = std::function<int()>;

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;  // a bad command line (main.cpp lists every code in --help)
inline constexpr int kExitNoGpu = 3;

// A command line that cannot be run as given (options that exclude each other, ...): one line
// naming the option, exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --quiet (or --log-level error/off): commands leave out progress and other chatter.
void set_quiet(bool quiet);
bool quiet();

// A count option's check (0 or more, within long long): "expected a count ..., got '-1'".
std::string check_count(const std::string& value);

void add_devices_command(CLI::App& app, CommandRunner& selected);
void add_calibrate_command(CLI::App& app, CommandRunner& selected);
void add_table_command(CLI::App& app, CommandRunner& selected);
void add_metrics_command(CLI::App& app, CommandRunner& selected);
void add_analyze_command(CLI::App& app, CommandRunner& selected);
void add_hist_command(CLI::App& app, CommandRunner& selected);  // hist and hist-bench
void add_validate_command(CLI::App& app, CommandRunner& selected);
void add_report_command(CLI::App& app, CommandRunner& selected);
void add_demo_command(CLI::App& app, CommandRunner& selected);

// Prints one line about a CUDA error met while looking for a GPU; returns the exit code
// (kExitNoGpu when there is no usable driver/device).
int report_gpu_error(const CudaError& e);

}  // namespace atomq::cli
