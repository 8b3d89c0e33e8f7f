// Per-kernel hardware counters through the CUPTI range profiler (AutoRange + KernelReplay):
// every kernel launch in a profiled context becomes one range, replayed once per pass.
// The same session serves the in-process API and the injection library.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "atomq/analyzer/kernel_filter.hpp"
#include "atomq/analyzer/nvtx_filter.hpp"
#include "atomq/run_document/run_document.hpp"  // SessionStats
#include "atomq/model/kernel_profile.hpp"

namespace atomq::analyzer {

using run::SessionStats;

struct ProfilerOptions {
  std::vector<std::string> metrics;           // default: collector_metric_names(sector_counters)
  bool sector_counters = false;               // the default list with the sector counters (metric_list.hpp)
  std::optional<KernelFilter> kernel_filter;  // profile only matching kernels (kernel_filter.hpp)
  std::optional<NvtxFilter> nvtx_filter;      // and only launches inside these NVTX ranges (nvtx_filter.hpp)
  // false: nothing is profiled until the program calls cuProfilerStart / cudaProfilerStart, and
  // nothing after cuProfilerStop until the next start (ncu's --profile-from-start off).
  bool profile_from_start = true;
  long long launch_skip = 0;                  // matching launches to let pass first
  long long launch_count = -1;                // then profile this many (-1: all)
  int device = -1;                            // profile only this device ordinal (-1: all)
  // A graph launch repeated once per pass from a device-memory checkpoint, a range per kernel
  // node (else kernel replay: one range per graph launch, its first kernel node).
  bool replay_graphs = true;
  model::CounterSource source = model::CounterSource::kInProcess;
  // Where the code objects holding profiled kernels are saved (loaded_code.hpp), so their SASS
  // can be read after the run; "" keeps none (the in-process commands read their own binary).
  std::string loaded_code_directory;
  // Called once, right before the first launch the session profiles (nothing profiled yet):
  // where the counters must wait for another process to be done with the GPU.
  std::function<void()> before_first_profiled_launch;
};

using ProfileSink = std::function<void(const model::KernelProfile&)>;

// Subscribes to CUPTI launch callbacks on construction (one CUPTI subscriber per process:
// fails clearly if ncu, nsys or another profiler holds it) and profiles matching launches
// until destroyed. Thread-safe; never throws from inside a callback.
class KernelProfilingSession {
 public:
  KernelProfilingSession(ProfilerOptions options, ProfileSink sink);
  ~KernelProfilingSession();
  KernelProfilingSession(const KernelProfilingSession&) = delete;
  KernelProfilingSession& operator=(const KernelProfilingSession&) = delete;

  // Stops profiling, decodes what is pending, unsubscribes. Idempotent.
  void finish();
  SessionStats stats() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

// Convenience for the in-process API: profile every launch made while `work` runs; the
// session's launch counts go to *stats when given.
std::vector<model::KernelProfile> profile_launches(const std::function<void()>& work,
                                                   ProfilerOptions options = {},
                                                   SessionStats* stats = nullptr);

// For work the caller can repeat (its own benchmark launches, whose results it does not read
// between repeats): runs `work` once per profiling pass in the current context, without saving
// or restoring device memory, a range per launch; metrics, device and source from `options`
// (the filters do not apply). Far cheaper than kernel replay. Throws CudaError.
std::vector<model::KernelProfile> profile_repeatable(const std::function<void()>& work, size_t launches,
                                                     const ProfilerOptions& options = {});

std::string demangle(const std::string& mangled);

}  // namespace atomq::analyzer
