// atomq: performance analyzer for the shared-memory atomic unit of NVIDIA GPUs.
// Only the CLI prints; the libraries log through spdlog (stderr).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/report/report.hpp"
#if ATOMQ_WITH_CUDA
#include "atomq/cuda/check.hpp"
#endif
#include "atomq/version.hpp"
#include "commands.hpp"
#if ATOMQ_FORWARD_TO_GPU_BINARY
#include "gpu_forward.hpp"
#endif

namespace {

using namespace atomq::cli;

// What was printed must have reached stdout: `atomq table show T > /dev/full` is an error.
int with_stdout_checked(int rc) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "atomq: cannot write to standard output: {}\n", std::strerror(errno));
    return rc != 0 ? rc : kExitError;
  }
  return rc;
}

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 1 error (bad input, a failed command); 2 usage error; 3 no usable NVIDIA GPU "
    "(or a host-only build); 4 profiling failed; 127 the program to analyze could not be run; any other: "
    "the analyzed program's own exit code.\n"
    "Environment: NO_COLOR (no colour), ATOMQ_TABLE, ATOMQ_TABLE_DIR, ATOMQ_DATA_DIR (docs/analyzer.md).";

// Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
void set_up_logging() {
  const char* no_color = std::getenv("NO_COLOR");
  const auto mode = no_color != nullptr && *no_color != '\0' ? spdlog::color_mode::never : spdlog::color_mode::automatic;
  spdlog::set_default_logger(spdlog::stderr_color_mt("atomq", mode));
  spdlog::set_pattern("atomq: %^%l%$: %v");
  spdlog::set_level(spdlog::level::warn);
}

// The first word that is neither an option nor an option's value: the command the user meant.
std::string first_command_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--log-level") ++i;  // its value follows
    if (word.empty() || word[0] == '-') continue;
    return word;
  }
  return "";
}

// One line naming the bad word, and where to read the usage; exit 2.
int usage_error(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::string commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
  const std::string word = first_command_word(argc, argv);
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    known = known || sub->get_name() == word;
  if (!known && !word.empty())
    fmt::print(stderr, "atomq: unknown command '{}' (commands: {}); see atomq --help\n", word, commands);
  else if (word.empty())
    fmt::print(stderr, "atomq: a command is required (commands: {}); see atomq --help\n", commands);
  else
    fmt::print(stderr, "atomq: {} (see atomq {} --help)\n", e.what(), word);
  return kExitUsage;
}

const std::map<std::string, spdlog::level::level_enum> kLogLevels = {
    {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
    {"warning", spdlog::level::warn}, {"error", spdlog::level::err},  {"off", spdlog::level::off}};

struct GlobalOptions {
  int verbose = 0;
  bool quiet = false;
  std::string log_level;
};

void add_global_options(CLI::App& app, GlobalOptions& g) {
  app.set_version_flag("--version", std::string("atomq ") + atomq::kVersion + " (" + atomq::kGitCommit + ")");
  app.require_subcommand(1);
  app.footer(kExitCodes);
  app.add_flag("-v,--verbose", g.verbose, "log details to stderr (-vv: debug)");
  app.add_flag("-q,--quiet", g.quiet, "errors only on stderr: no warnings, no progress (= --log-level error)");
  app.add_option("--log-level", g.log_level, "trace, debug, info, warning (default), error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warning", "error", "off"}));
}

void apply_global_options(const GlobalOptions& g) {
  if (g.verbose == 1) spdlog::set_level(spdlog::level::info);
  if (g.verbose >= 2) spdlog::set_level(spdlog::level::debug);
  if (g.quiet) spdlog::set_level(spdlog::level::err);
  if (!g.log_level.empty()) spdlog::set_level(kLogLevels.at(g.log_level));
  set_quiet(g.quiet || spdlog::get_level() >= spdlog::level::err);
}

int run_selected(const CommandRunner& selected) {
  try {
    return with_stdout_checked(selected());
#if ATOMQ_WITH_CUDA
  } catch (const atomq::CudaError& e) {
    return report_gpu_error(e);
#endif
  } catch (const atomq::calibration::TableError& e) {
    fmt::print(stderr, "atomq: invalid table: {}\n", atomq::report::terminal_text(e.what()));
    return kExitError;
  } catch (const UsageError& e) {
    fmt::print(stderr, "atomq: {}\n", atomq::report::terminal_text(e.what()));
    return kExitUsage;
  } catch (const std::exception& e) {  // names from input files: no escape sequence reaches the terminal
    // A print that failed midway (a full disk under stdout) is the same error as a failed flush.
    if (std::ferror(stdout)) return with_stdout_checked(kExitError);
    fmt::print(stderr, "atomq: {}\n", atomq::report::terminal_text(e.what()));
    return kExitError;
  }
}

}  // namespace

int main(int argc, char** argv) {
#if ATOMQ_FORWARD_TO_GPU_BINARY
  remember_command_line(argc, argv);
  if (const std::string word = first_command_word(argc, argv); is_gpu_command(word))
    return run_gpu_binary("`atomq " + word + "`");
#endif
  set_up_logging();
  CLI::App app{"atomq: analyzer for the shared-memory atomic unit of NVIDIA GPUs"};
  GlobalOptions global;
  add_global_options(app, global);

  CommandRunner selected;
  add_devices_command(app, selected);
  add_calibrate_command(app, selected);
  add_table_command(app, selected);
  add_metrics_command(app, selected);
  add_analyze_command(app, selected);
  add_hist_command(app, selected);
  add_validate_command(app, selected);
  add_report_command(app, selected);
  add_demo_command(app, selected);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return usage_error(app, e, argc, argv);
  }
  apply_global_options(global);
  if (!selected) return kExitError;
  return run_selected(selected);
}
