// The front's hand-over to atomq-gpu (gpu_forward.hpp).
#include "gpu_forward.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <vector>

#include "commands.hpp"

namespace atomq::cli {

namespace {

std::vector<char*> g_arguments;  // argv as main() got it, null-terminated

}  // namespace

void remember_command_line(int argc, char** argv) { g_arguments.assign(argv, argv + argc); }

bool is_gpu_command(const std::string& word) {
  static const std::set<std::string> kGpuCommands = {"devices", "calibrate", "hist", "hist-bench", "validate"};
  return kGpuCommands.count(word) > 0;
}

int run_gpu_binary(const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path gpu = fs::read_symlink("/proc/self/exe", ec).parent_path() / "atomq-gpu";
  if (ec || access(gpu.c_str(), X_OK) != 0) {
    fmt::print(stderr, "atomq: {} needs atomq-gpu, which is not beside atomq ({}); reinstall atomq\n", what,
               gpu.string());
    return kExitNoGpu;
  }
  // Say which library is missing rather than leave it to the loader's message (exit 127).
  void* cupti = dlopen(ATOMQ_CUPTI_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
  if (cupti == nullptr) cupti = dlopen(ATOMQ_CUPTI_SONAME, RTLD_LAZY | RTLD_LOCAL);
  if (cupti != nullptr) {
    dlclose(cupti);
  } else {
    const char* why = dlerror();
    fmt::print(stderr,
               "atomq: {} needs the CUDA toolkit's CUPTI ({}), which cannot be loaded: {}; report, demo --replay, "
               "table and analyze --ncu-csv need no toolkit\n",
               what, ATOMQ_CUPTI_LIBRARY, why ? why : "not found");
    return kExitNoGpu;
  }
  // argv[0] stays the user's `atomq`: usage lines name the command they typed.
  std::vector<char*> args = g_arguments;
  const std::string program = gpu.string();
  args.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  execv(program.c_str(), args.data());
  fmt::print(stderr, "atomq: cannot run {}: {}\n", program, std::strerror(errno));
  return kExitNoGpu;
}

}  // namespace atomq::cli
