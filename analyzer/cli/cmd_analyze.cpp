// atomq analyze [options] -- PROGRAM ARGS...   profile an unmodified program by injection
// atomq analyze --ncu-csv FILE                  analyze an ncu CSV export offline
// Writes the run document (JSON, atomically) and prints one line per kernel launch.
#include <cupti_result.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "atomq/analyzer/analysis_run.hpp"
#include "atomq/analyzer/ncu_csv.hpp"
#include "atomq/microbench/atomic_stream.hpp"
#include "commands.hpp"
#include "run_report.hpp"

namespace atomq::cli {

namespace {

namespace fs = std::filesystem;

constexpr int kExitProfilingFailed = 4;

struct AnalyzeArgs {
  std::vector<std::string> program;
  std::string ncu_csv;
  std::string output = "atomq-analysis.json";
  std::string table;
  std::string kernel_regex;
  long long launch_skip = 0;
  long long launch_count = -1;
  int device = -1;
};

fs::path self_dir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

std::string injection_library() {
  if (const char* env = std::getenv("ATOMQ_INJECT_LIB"); env && *env) return env;
  for (const fs::path& candidate : {self_dir() / ".." / "lib" / "libatomq_inject.so", self_dir() / "libatomq_inject.so"})
    if (fs::exists(candidate)) return fs::canonical(candidate).string();
  throw std::runtime_error("libatomq_inject.so not found next to atomq (set ATOMQ_INJECT_LIB)");
}

// The folder libcupti was loaded from: libcupti loads libnvperf_host.so by bare name, so the
// profiled program needs that folder on its loader path.
std::string cupti_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetResultString), &info) && info.dli_fname)
    return fs::path(info.dli_fname).parent_path().string();
  return "";
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string fixes_for(const std::string& error) {
  if (error.find("INSUFFICIENT_PRIVILEGES") != std::string::npos || error.find("privilege") != std::string::npos)
    return " Fix: run as root or with CAP_SYS_ADMIN, or load the driver with "
           "NVreg_RestrictProfilingToAdminUsers=0 (ERR_NVGPUCTRPERM).";
  if (error.find("another profiler") != std::string::npos)
    return " Fix: run atomq outside ncu/nsys/compute-sanitizer and disable framework profilers.";
  if (error.find("nvperf") != std::string::npos || error.find("LIBRARY") != std::string::npos)
    return " Fix: put the CUDA toolkit's lib folder (libnvperf_host.so) on LD_LIBRARY_PATH.";
  return "";
}

int run_ncu_csv(const AnalyzeArgs& a) {
  analyzer::RunInfo info;
  info.command = a.ncu_csv;
  info.source = "ncu_csv";
  std::vector<model::KernelProfile> profiles;
  try {
    profiles = analyzer::load_ncu_csv(a.ncu_csv);
  } catch (const analyzer::NcuCsvError& e) {
    fmt::print(stderr, "atomq: invalid ncu export: {}\n", e.what());
    return kExitError;
  }
  info.launches.launches_seen = info.launches.launches_profiled = static_cast<long long>(profiles.size());
  return write_and_print_run(a.output, a.table, info, profiles);
}

int run_program(const AnalyzeArgs& a) {
  // No GPU, no driver: say so once instead of running a program that cannot be profiled.
  if (microbench::device_count() == 0) {
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: the driver sees no CUDA device\n");
    return kExitNoGpu;
  }
  const std::string stream = a.output + ".profiles.jsonl";
  fs::remove(stream);
  const std::string library = injection_library();
  std::string ld_path = cupti_dir();
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) ld_path += (ld_path.empty() ? "" : ":") + std::string(old);

  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setenv("CUDA_INJECTION64_PATH", library.c_str(), 1);
    setenv("ATOMQ_PROFILE_OUTPUT", stream.c_str(), 1);
    if (!ld_path.empty()) setenv("LD_LIBRARY_PATH", ld_path.c_str(), 1);
    if (!a.kernel_regex.empty()) setenv("ATOMQ_KERNEL_REGEX", a.kernel_regex.c_str(), 1);
    setenv("ATOMQ_LAUNCH_SKIP", std::to_string(a.launch_skip).c_str(), 1);
    setenv("ATOMQ_LAUNCH_COUNT", std::to_string(a.launch_count).c_str(), 1);
    setenv("ATOMQ_DEVICE", std::to_string(a.device).c_str(), 1);
    std::vector<char*> argv;
    for (const auto& s : a.program) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    fmt::print(stderr, "atomq: cannot run {}: {}\n", a.program[0], std::strerror(errno));
    _exit(127);
  }
  // The program owns the terminal while it runs: Ctrl-C goes to it, atomq reports after.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (WIFEXITED(status) && exit_code == 127 && !fs::exists(stream)) return 127;

  analyzer::RunInfo info;
  info.command = joined(a.program);
  info.source = "injected";
  info.program_exit_code = exit_code;
  if (WIFSIGNALED(status))
    info.warnings.push_back(fmt::format("the program was killed by signal {}: profiles written before that are kept",
                                        WTERMSIG(status)));
  std::vector<model::KernelProfile> profiles;
  std::vector<std::string> messages;
  std::string collector_error;
  if (fs::exists(stream)) profiles = analyzer::read_profile_stream(stream, &messages);
  for (const auto& m : messages) {
    try {
      const auto j = nlohmann::json::parse(m);
      const std::string kind = j.value("kind", "");
      if (kind == "stats") {
        info.launches = analyzer::stats_from_collector_message(m);
        if (info.launches.failed > 0) collector_error = info.launches.last_error;
      } else if (kind == "error") {
        collector_error = j.value("message", std::string());
      }
    } catch (...) {
      info.warnings.push_back(m);  // e.g. "truncated last line skipped"
    }
  }
  if (info.launches.launches_profiled == 0) info.launches.launches_profiled = static_cast<long long>(profiles.size());
  if (!collector_error.empty()) info.warnings.push_back("profiling error: " + collector_error);

  const int rc = write_and_print_run(a.output, a.table, info, profiles);
  if (!collector_error.empty() && profiles.empty()) {
    fmt::print(stderr, "atomq: profiling failed: {}{}\n", collector_error, fixes_for(collector_error));
    return exit_code != 0 ? exit_code : kExitProfilingFailed;
  }
  if (profiles.empty() && exit_code == 0)
    fmt::print(stderr, "atomq: the program launched no kernel that was profiled\n");
  return exit_code != 0 ? exit_code : rc;
}

}  // namespace

void add_analyze_command(CLI::App& app, CommandRunner& selected) {
  auto args = std::make_shared<AnalyzeArgs>();
  auto* sub = app.add_subcommand("analyze", "profile a program's kernels (or read an ncu CSV export) and evaluate the model");
  sub->add_option("--ncu-csv", args->ncu_csv, "analyze an `ncu --csv --metrics $(atomq metrics)` export offline");
  sub->add_option("-o,--output", args->output, "analysis file (JSON; default atomq-analysis.json)");
  sub->add_option("--table", args->table, "service-time table (default: calibrated or bundled for the GPU's chip)");
  sub->add_option("--kernel-name", args->kernel_regex, "profile only kernels whose name matches this regex");
  sub->add_option("--launch-skip", args->launch_skip, "skip this many matching launches first")->check(CLI::NonNegativeNumber);
  sub->add_option("--launch-count", args->launch_count, "profile at most this many matching launches")->check(CLI::NonNegativeNumber);
  sub->add_option("--device", args->device, "profile only launches on this CUDA device ordinal")->check(CLI::NonNegativeNumber);
  sub->add_option("program", args->program, "-- PROGRAM ARGS...");
  sub->callback([&selected, args] {
    selected = [args]() -> int {
      if (args->ncu_csv.empty() == args->program.empty()) {
        fmt::print(stderr, "atomq: give either --ncu-csv FILE or -- PROGRAM ARGS...\n");
        return kExitError;
      }
      return args->ncu_csv.empty() ? run_program(*args) : run_ncu_csv(*args);
    };
  });
}

}  // namespace atomq::cli
