// Terminal output helpers of the CLI: progress bar with ETA and the table summary; and the
// registration of a subcommand with its arguments.
#pragma once

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "atomq/calibration/calibrator.hpp"
#include "atomq/calibration/service_table.hpp"
#include "commands.hpp"

namespace atomq::cli {

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);
  void update(const calibration::CalibrationProgress& p);
  void finish();

 private:
  bool enabled_;
  bool tty_;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_;
};

void print_table_summary(std::FILE* out, const calibration::ServiceTable& table);

// A subcommand and the arguments its options fill.
template <typename Args>
struct Command {
  CLI::App* sub;
  std::shared_ptr<Args> args;
};

// Registers subcommand `name` on `app`; when the user selects it, `selected` becomes
// run(*args). The caller adds the options, bound to the fields of *args.
template <typename Args>
Command<Args> add_command(CLI::App& app, CommandRunner& selected, const std::string& name,
                          const std::string& description, int (*run)(const Args&)) {
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(name, description);
  sub->callback([&selected, args, run] { selected = [args, run] { return run(*args); }; });
  return {sub, args};
}

}  // namespace atomq::cli
