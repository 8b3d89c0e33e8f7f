// The protocol between `atomq analyze -- PROGRAM` (the parent) and libatomq_inject.so, which
// the CUDA driver loads into the unmodified program: the environment variables the parent
// sets for the child, the collector options they carry, and the kinds of the collector
// messages the library appends to the profile stream (atomq/run_document/profile_stream.hpp).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace atomq::analyzer {

namespace env {
// Read by the CUDA driver: the library it loads into every process it initializes in.
inline constexpr const char* kInjectionPath = "CUDA_INJECTION64_PATH";
// The profile stream the library appends to; unset: the library does nothing.
inline constexpr const char* kProfileOutput = "ATOMQ_PROFILE_OUTPUT";
inline constexpr const char* kKernelRegex = "ATOMQ_KERNEL_REGEX";  // the kernel name filter (NAME or regex:RE)
inline constexpr const char* kLaunchSkip = "ATOMQ_LAUNCH_SKIP";
inline constexpr const char* kLaunchCount = "ATOMQ_LAUNCH_COUNT";
inline constexpr const char* kDevice = "ATOMQ_DEVICE";
inline constexpr const char* kGraphReplay = "ATOMQ_GRAPH_REPLAY";  // 0: graph launches in kernel replay
inline constexpr const char* kKeepLoadedCode = "ATOMQ_KEEP_LOADED_CODE";  // 0: no copies of loaded modules
// Set: a per-instruction run of this one kernel (mangled name) instead of the counters.
inline constexpr const char* kInstructionSymbol = "ATOMQ_INSTRUCTION_SYMBOL";
inline constexpr const char* kInstructionLaunches = "ATOMQ_INSTRUCTION_LAUNCHES";
// Set: a per-instruction run of the first kernel this filter selects (NAME or regex:RE).
inline constexpr const char* kInstructionKernel = "ATOMQ_INSTRUCTION_KERNEL";
// 1: a per-instruction run ends its process once its counts are written (as ncu --kill).
inline constexpr const char* kInstructionStop = "ATOMQ_INSTRUCTION_STOP";
// A file between a per-instruction run and a counters run side by side: the first creates it
// when done with the GPU, the second waits for it before its first profiled launch.
inline constexpr const char* kGpuGate = "ATOMQ_GPU_GATE";
// NVTX range patterns (nvtx_filter.hpp), one per line.
inline constexpr const char* kNvtxInclude = "ATOMQ_NVTX_INCLUDE";
inline constexpr const char* kNvtxExclude = "ATOMQ_NVTX_EXCLUDE";
// 0: profile nothing until the program calls cudaProfilerStart (ncu's --profile-from-start off).
inline constexpr const char* kProfileFromStart = "ATOMQ_PROFILE_FROM_START";
// 1: the sector counters too (metric_list.hpp, sector_metrics).
inline constexpr const char* kSectorCounters = "ATOMQ_SECTOR_COUNTERS";
// atomq's pid: the process whose parent it is, the program atomq started, writes the profile
// stream itself; every other process writes one beside it (atomq/analyzer/process_streams.hpp).
inline constexpr const char* kParentPid = "ATOMQ_PARENT_PID";
// Set by the user for atomq itself: where libatomq_inject.so is (default: next to atomq).
inline constexpr const char* kInjectLib = "ATOMQ_INJECT_LIB";
}  // namespace env

// The "kind" of a collector message, as run::stats_message and run::error_message write it.
namespace message_kind {
inline constexpr const char* kStats = "stats";  // the session's launch counts, at exit
inline constexpr const char* kError = "error";  // profiling stopped: {"message": text}
inline constexpr const char* kInstructions = "instructions";  // a per-instruction run's counts
}  // namespace message_kind

// Which launches the injected collector profiles.
struct CollectorOptions {
  std::string kernel_name;      // only kernels it selects (NAME or regex:RE, kernel_filter.hpp); "" = all
  long long launch_skip = 0;    // matching launches to let pass first
  long long launch_count = -1;  // then profile this many (-1: all)
  int device = -1;              // only launches on this device ordinal (-1: all)
  // Graph launches repeated per pass from a device-memory checkpoint, a range per kernel node;
  // false: CUPTI's kernel replay, which gives a graph launch one range (its first kernel node).
  bool replay_graphs = true;
  // Copies of the modules the driver loads, for the SASS of kernels outside the executable
  // (loaded_code.hpp); false where nothing could read them (no cuobjdump) or when asked.
  bool keep_loaded_code = true;
  // Non-empty: collect per-instruction counts of this kernel (mangled name) over its first
  // instruction_launches launches instead of profiling counters.
  std::string instruction_symbol;
  long long instruction_launches = 1;
  // Non-empty (and no symbol): the same for the first kernel this filter selects.
  std::string instruction_kernel;
  // A per-instruction run ends the program once its counts are written: a run beside the
  // counters' is only there for them (ncu's --kill).
  bool stop_after_instructions = false;
  // Non-empty: env::kGpuGate's file (a per-instruction run opens it, a counters run waits).
  std::string gpu_gate;
  // A per-instruction run (of a named symbol or of the first kernel a filter selects).
  bool collects_instructions() const { return !instruction_symbol.empty() || !instruction_kernel.empty(); }
  // Only launches inside these NVTX ranges, none inside those (ncu's syntax, nvtx_filter.hpp).
  std::vector<std::string> nvtx_include, nvtx_exclude;
  // false: only launches between cudaProfilerStart and cudaProfilerStop (cuProfilerStart/Stop).
  bool profile_from_start = true;
  bool sector_counters = false;  // the counters on request too (one more replay pass on GH100)
};

// Patterns one per line, and back (a range name holds no line break).
inline std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl = text.find('\n'); ; nl = text.find('\n', start)) {
    const std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!line.empty()) out.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// Opens a GPU gate (CollectorOptions::gpu_gate): creates its file (nothing when "").
inline void open_gpu_gate(const std::string& path) {
  if (path.empty()) return;
  if (std::FILE* f = std::fopen(path.c_str(), "a")) std::fclose(f);
}

// A process environment, by variable name.
using Environment = std::map<std::string, std::string>;

// For the parent: sets the options' variables in `environment` (an empty regex removes its
// variable, so a value inherited from the user's shell does not apply).
inline void write_collector_options(const CollectorOptions& options, Environment& environment) {
  if (options.kernel_name.empty())
    environment.erase(env::kKernelRegex);
  else
    environment[env::kKernelRegex] = options.kernel_name;
  environment[env::kLaunchSkip] = std::to_string(options.launch_skip);
  environment[env::kLaunchCount] = std::to_string(options.launch_count);
  environment[env::kDevice] = std::to_string(options.device);
  environment[env::kGraphReplay] = options.replay_graphs ? "1" : "0";
  environment[env::kKeepLoadedCode] = options.keep_loaded_code ? "1" : "0";
  auto set_or_erase = [&environment](const char* name, const std::string& value) {
    if (value.empty())
      environment.erase(name);
    else
      environment[name] = value;
  };
  set_or_erase(env::kInstructionSymbol, options.instruction_symbol);
  set_or_erase(env::kInstructionKernel, options.instruction_symbol.empty() ? options.instruction_kernel : "");
  const bool instructions = options.collects_instructions();
  set_or_erase(env::kInstructionLaunches, instructions ? std::to_string(options.instruction_launches) : "");
  set_or_erase(env::kInstructionStop, instructions && options.stop_after_instructions ? "1" : "");
  set_or_erase(env::kGpuGate, options.gpu_gate);
  set_or_erase(env::kNvtxInclude, joined_lines(options.nvtx_include));
  set_or_erase(env::kNvtxExclude, joined_lines(options.nvtx_exclude));
  set_or_erase(env::kProfileFromStart, options.profile_from_start ? "" : "0");
  set_or_erase(env::kSectorCounters, options.sector_counters ? "1" : "");
}

// For the injected library: the options from the environment `lookup` reads (default: this
// process's). A variable that is unset or not a whole number keeps the default.
inline CollectorOptions read_collector_options(
    const std::function<const char*(const char*)>& lookup = [](const char* name) { return std::getenv(name); }) {
  auto number = [&lookup](const char* name, long long fallback) {
    const char* v = lookup(name);
    if (v == nullptr || *v == '\0') return fallback;
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    return (end && *end == '\0') ? n : fallback;
  };
  CollectorOptions options;
  if (const char* re = lookup(env::kKernelRegex); re && *re) options.kernel_name = re;
  options.launch_skip = number(env::kLaunchSkip, options.launch_skip);
  options.launch_count = number(env::kLaunchCount, options.launch_count);
  options.device = static_cast<int>(number(env::kDevice, options.device));
  options.replay_graphs = number(env::kGraphReplay, 1) != 0;
  options.keep_loaded_code = number(env::kKeepLoadedCode, 1) != 0;
  if (const char* symbol = lookup(env::kInstructionSymbol); symbol && *symbol) options.instruction_symbol = symbol;
  options.instruction_launches = number(env::kInstructionLaunches, options.instruction_launches);
  if (const char* filter = lookup(env::kInstructionKernel); filter && *filter) options.instruction_kernel = filter;
  options.stop_after_instructions = number(env::kInstructionStop, 0) == 1;
  if (const char* gate = lookup(env::kGpuGate); gate && *gate) options.gpu_gate = gate;
  if (const char* include = lookup(env::kNvtxInclude); include && *include) options.nvtx_include = split_lines(include);
  if (const char* exclude = lookup(env::kNvtxExclude); exclude && *exclude) options.nvtx_exclude = split_lines(exclude);
  options.profile_from_start = number(env::kProfileFromStart, 1) != 0;
  options.sector_counters = number(env::kSectorCounters, 0) == 1;
  return options;
}

}  // namespace atomq::analyzer
