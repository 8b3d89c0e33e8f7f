// libatomq_inject.so: loaded by the CUDA driver into an unmodified program through
// CUDA_INJECTION64_PATH (set by `atomq analyze -- PROGRAM`, atomq/analyzer/injected_run.hpp).
// It profiles the program's kernel launches and appends one KernelProfile per line to the
// profile stream named by ATOMQ_PROFILE_OUTPUT, flushed after each launch; its options come
// from the environment (atomq/analyzer/injection_protocol.hpp). It must never crash or stop
// the program: every failure becomes an "error" collector message and profiling stops.
#include <cupti.h>
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>
#include <mutex>
#include <regex>
#include <string>

#include "atomq/analyzer/injection_protocol.hpp"
#include "atomq/analyzer/instruction_profiler.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/analyzer/loaded_code.hpp"
#include "atomq/run_document/process_streams.hpp"
#include "atomq/run_document/profile_stream.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace {

using atomq::analyzer::KernelProfilingSession;
using atomq::analyzer::ProfilerOptions;
using atomq::run::ProfileStreamWriter;

std::unique_ptr<ProfileStreamWriter> g_writer;
std::unique_ptr<KernelProfilingSession> g_session;
std::unique_ptr<atomq::analyzer::InstructionProfilingSession> g_instructions;
atomq::model::ProcessTag g_process;  // tags every profile: the parent merges the processes' streams
bool g_exiting = false;              // in flush_at_exit: the program is ending by itself

void report_error(const std::string& text) {
  if (!g_writer) return;
  try {
    g_writer->write_message(atomq::run::error_message(text));
  } catch (...) {
  }
}

void flush_at_exit() {
  g_exiting = true;
  try {
    if (g_instructions) g_instructions->finish();
    if (!g_session) return;
    g_session->finish();
    if (g_writer) g_writer->write_message(atomq::run::stats_message(g_session->stats()));
  } catch (...) {
  }
}

// The GPU gate between a per-instruction run and a counters run side by side
// (injection_protocol.hpp): passed once its file exists.
void wait_for_gate(const std::string& path) {
  constexpr auto kLongest = std::chrono::minutes(10);  // then profile anyway, and say so
  const auto until = std::chrono::steady_clock::now() + kLongest;
  std::error_code ec;
  while (!std::filesystem::exists(path, ec)) {
    if (std::chrono::steady_clock::now() > until) {
      spdlog::warn("the per-instruction run beside this one did not finish in 10 minutes: profiling anyway");
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// A per-instruction run is over (counts written, or failed): open the gate, and end the
// process when it is only there for the counts.
void instructions_over(const atomq::analyzer::CollectorOptions& collector) {
  atomq::analyzer::open_gpu_gate(collector.gpu_gate);
  if (!collector.stop_after_instructions || g_exiting) return;
  g_writer.reset();  // closes the stream
  std::_Exit(0);
}

ProfilerOptions profiler_options(const atomq::analyzer::CollectorOptions& collector, const char* stream_path) {
  ProfilerOptions options;
  // The kernels of shared libraries and run-time modules: their code, for the SASS hints.
  if (collector.keep_loaded_code) options.loaded_code_directory = atomq::analyzer::loaded_code_directory(stream_path);
  options.source = atomq::model::CounterSource::kInjected;
  if (!collector.kernel_name.empty()) options.kernel_filter = atomq::analyzer::KernelFilter(collector.kernel_name);
  options.launch_skip = collector.launch_skip;
  options.launch_count = collector.launch_count;
  options.device = collector.device;
  options.replay_graphs = collector.replay_graphs;
  if (!collector.nvtx_include.empty() || !collector.nvtx_exclude.empty())
    options.nvtx_filter.emplace(collector.nvtx_include, collector.nvtx_exclude);
  options.profile_from_start = collector.profile_from_start;
  options.sector_counters = collector.sector_counters;
  if (!collector.gpu_gate.empty())
    options.before_first_profiled_launch = [gate = collector.gpu_gate] { wait_for_gate(gate); };
  return options;
}

void start_profiling(const char* stream_path) {
  // Log to stderr, never into the program's stdout.
  spdlog::set_default_logger(
      std::make_shared<spdlog::logger>("atomq", std::make_shared<spdlog::sinks::stderr_sink_mt>()));
  spdlog::set_pattern("atomq: %l: %v");
  spdlog::set_level(spdlog::level::warn);
  g_process = atomq::run::this_process([](const char* name) { return std::getenv(name); });
  const char* parent = std::getenv(atomq::analyzer::env::kParentPid);
  const bool root = parent == nullptr || std::to_string(getppid()) == parent;
  g_writer = std::make_unique<ProfileStreamWriter>(atomq::run::claim_process_stream(stream_path, g_process, root));
  const atomq::analyzer::CollectorOptions collector = atomq::analyzer::read_collector_options();
  if (collector.collects_instructions()) {
    // A per-instruction run: no counters (the two collections must not share a process).
    atomq::analyzer::InstructionCollectorOptions options{collector.instruction_symbol, collector.instruction_launches};
    if (collector.instruction_symbol.empty()) options.filter.emplace(collector.instruction_kernel);
    g_instructions = std::make_unique<atomq::analyzer::InstructionProfilingSession>(
        std::move(options),
        [collector](const atomq::analyzer::InstructionCounts& c) {
          g_writer->write_message(atomq::run::instructions_message(c.symbol, c.profile, g_process));
          instructions_over(collector);
        },
        [collector](const std::string& error) {
          report_error(error);
          instructions_over(collector);
        });
  } else {
    g_session = std::make_unique<KernelProfilingSession>(
        profiler_options(collector, stream_path), [](const atomq::model::KernelProfile& p) {
          try {
            atomq::model::KernelProfile tagged = p;
            tagged.process = g_process;
            g_writer->write(tagged);
          } catch (const atomq::model::ProfileError& e) {  // one bad launch, not the program
            report_error(e.what());
          }
        });
  }
  std::atexit(flush_at_exit);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      const char* out = std::getenv(atomq::analyzer::env::kProfileOutput);
      if (out == nullptr || *out == '\0') return;  // not started by atomq: do nothing
      start_profiling(out);
    } catch (const std::exception& e) {
      report_error(e.what());
      g_session.reset();
      g_instructions.reset();
    } catch (...) {
      report_error("unknown failure while setting up profiling");
      g_session.reset();
    }
  });
  return 1;  // always: a setup error goes to the profile stream, never to the program
}

// NVTX loads the library NVTX_INJECTION64_PATH names (`atomq analyze` names this one) and calls
// this: it hands NVTX to the CUPTI instance this library uses, so that the collector's
// subscriber gets the program's ranges. Naming libcupti's own file instead could reach a second
// instance: a program may load its own copy of libcupti before CUDA loads this library (PyTorch
// ships one), and the collector then uses that copy.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* (*export_table)(uint32_t)) {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&cuptiGetResultString), &info) || info.dli_fname == nullptr) return 0;
  void* cupti = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) return 0;
  using Init = int (*)(const void* (*)(uint32_t));
  const auto init = reinterpret_cast<Init>(dlsym(cupti, "InitializeInjectionNvtx2"));
  const int ok = init ? init(export_table) : 0;
  dlclose(cupti);  // NOLOAD took a reference: give it back (the library stays loaded)
  return ok;
}
