// libatomq_inject.so: loaded by the CUDA driver into an unmodified program through
// CUDA_INJECTION64_PATH (set by `atomq analyze -- PROGRAM`). It profiles the program's kernel
// launches and appends one KernelProfile per line to $ATOMQ_PROFILE_OUTPUT, flushed after
// each launch. It must never crash or stop the program: every failure becomes a
// {"collector": {...}} line and profiling stops.
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "atomq/analyzer/analysis_run.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace {

using atomq::analyzer::KernelProfilingSession;
using atomq::analyzer::ProfilerOptions;
using atomq::analyzer::ProfileStreamWriter;

std::unique_ptr<ProfileStreamWriter> g_writer;
std::unique_ptr<KernelProfilingSession> g_session;

long long env_number(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long long n = std::strtoll(v, &end, 10);
  return (end && *end == '\0') ? n : fallback;
}

void message(const std::string& kind, const std::string& text) {
  if (!g_writer) return;
  try {
    g_writer->write_raw_line(nlohmann::json{{"collector", {{"kind", kind}, {"message", text}}}}.dump());
  } catch (...) {
  }
}

void flush_at_exit() {
  try {
    if (!g_session) return;
    g_session->finish();
    if (g_writer) g_writer->write_raw_line(atomq::analyzer::stats_line(g_session->stats()));
  } catch (...) {
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      const char* out = std::getenv("ATOMQ_PROFILE_OUTPUT");
      if (out == nullptr || *out == '\0') return;  // not started by atomq: do nothing
      // Log to stderr, never into the program's stdout.
      spdlog::set_default_logger(std::make_shared<spdlog::logger>(
          "atomq", std::make_shared<spdlog::sinks::stderr_sink_mt>()));
      spdlog::set_pattern("atomq: %l: %v");
      spdlog::set_level(spdlog::level::warn);
      g_writer = std::make_unique<ProfileStreamWriter>(out);
      ProfilerOptions options;
      options.source = atomq::model::CounterSource::kInjected;
      if (const char* re = std::getenv("ATOMQ_KERNEL_REGEX"); re && *re) {
        options.kernel_filter = std::regex(re);
      }
      options.launch_skip = env_number("ATOMQ_LAUNCH_SKIP", 0);
      options.launch_count = env_number("ATOMQ_LAUNCH_COUNT", -1);
      options.device = static_cast<int>(env_number("ATOMQ_DEVICE", -1));
      g_session = std::make_unique<KernelProfilingSession>(
          options, [](const atomq::model::KernelProfile& p) { g_writer->write(p); });
      std::atexit(flush_at_exit);
    } catch (const std::exception& e) {
      message("error", e.what());
      g_session.reset();
    } catch (...) {
      message("error", "unknown failure while setting up profiling");
      g_session.reset();
    }
  });
  return 1;  // always: a setup error goes to the profile stream, never to the program
}
