// The parts of KernelProfilingSession (atomq/analyzer/kernel_profiler.hpp) in files of their
// own: the range profiler of one context (kernel_profiler_range.cpp) and what a launch
// callback tells about the launch (kernel_profiler_launch.cpp).
#pragma once

#include <cuda.h>
#include <cupti.h>
#include <cupti_range_profiler.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "atomq/analyzer/metric_config.hpp"
#include "atomq/model/kernel_profile.hpp"

namespace atomq::analyzer::detail {

// How the range profiler of one context makes and replays its ranges.
enum class ReplayMode {
  kKernel,         // AutoRange + KernelReplay: a range per launch; CUPTI replays each launch once
                   // per pass, saving and restoring device memory
  kUserPerLaunch,  // AutoRange + UserReplay: a range per launch; the caller repeats the work
                   // between start() and stop() until stop() says every pass is submitted
  kUserOneRange,   // UserRange + UserReplay: a range between push_range() and pop_range(),
                   // repeated like kUserPerLaunch
};

// The CUPTI range profiler of one context. A mode is fixed per object: a profiler object that has
// profiled takes a new range mode, then fails at its first range.
class ContextProfiler {
 public:
  // `config` may be shared between profilers of one device (building one takes a while).
  ContextProfiler(CUcontext ctx, std::shared_ptr<const MetricConfig> config,
                  ReplayMode mode = ReplayMode::kKernel, size_t max_ranges = kMaxRanges);
  ~ContextProfiler();  // stops and disables the profiler
  ContextProfiler(const ContextProfiler&) = delete;
  ContextProfiler& operator=(const ContextProfiler&) = delete;

  // The metric configuration of `ctx`'s device for `metrics`.
  static std::shared_ptr<const MetricConfig> configure(CUcontext ctx, const std::vector<std::string>& metrics);

  void start();  // both do nothing when already in that state
  // Whether every pass has been submitted (always, in kernel replay): in user replay the
  // caller repeats the same work after another start() until it is.
  bool stop();
  void push_range(const char* name);  // kUserOneRange only
  void pop_range();
  // Most ranges one decode holds by default.
  static constexpr size_t kMaxRanges = 64;
  // Values of every range since the last call, in launch order (one value per metric).
  std::vector<std::vector<double>> collect();

  const MetricConfig& config() const { return *config_; }
  const std::shared_ptr<const MetricConfig>& shared_config() const { return config_; }
  const model::DeviceInfo& device_info() const { return device_info_; }

 private:
  void set_config();
  void reset_counter_data();

  uint32_t device_ = 0;
  model::DeviceInfo device_info_;
  std::shared_ptr<const MetricConfig> config_;
  ReplayMode mode_;
  size_t max_ranges_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  std::vector<uint8_t> counter_data_;
  bool running_ = false;
};

class DeviceCheckpoint;

// A graph launch profiled in user replay as one range over all its kernel nodes: the first
// pass is the program's own launch; each further pass restores the device memory saved before
// it and launches the graph again (kernel_profiler_graph_replay.cpp).
class GraphReplay {
 public:
  // Before the program's launch: saves the context's memory (when the metrics take more than
  // one pass) and starts the first pass. Throws CudaError; nothing has changed then.
  GraphReplay(CUcontext ctx, std::shared_ptr<const MetricConfig> config, CUgraphExec exec, CUstream stream);
  ~GraphReplay();
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;

  // After the program's launch: runs the other passes. On failure the graph's effect on device
  // memory is still that of one launch, and it throws.
  void finish();
  ContextProfiler& profiler() { return *profiler_; }
  int passes() const { return passes_; }

  // Whether this thread is relaunching a graph: its own launch callbacks are atomq's, not the program's.
  static bool replaying_on_this_thread();

 private:
  void relaunch();

  CUgraphExec exec_;
  CUstream stream_;
  std::unique_ptr<ContextProfiler> profiler_;
  std::unique_ptr<DeviceCheckpoint> checkpoint_;
  int passes_ = 1;
};

// The name of a launch whose callback gave no symbol.
inline constexpr const char* kUnknownKernel = "<unknown kernel>";

// A launch seen at its ENTER callback, waiting for its range to be decoded.
struct PendingLaunch {
  std::string name;  // mangled
  model::LaunchConfig launch;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  long long index = 0;  // among every launch the session saw
  // Among its kernel's direct launches, from 0 (as a per-instruction run counts them); none for a graph's node.
  std::optional<long long> symbol_launch;
  bool keep = true;     // a graph's kernel node the filters leave out is profiled, then dropped
  std::optional<model::GraphNodeTag> graph;  // set for a graph's kernel node
  std::vector<std::string> nvtx;  // the NVTX ranges open on the launching thread, outermost first
};

// NVTX (kernel_profiler_nvtx.cpp): the push/pop ranges open on this thread, kept from CUPTI's
// NVTX callbacks, which enable_nvtx_callbacks turns on for a subscriber.
const std::vector<std::string>& open_nvtx_ranges();
void on_nvtx(CUpti_CallbackId id, const void* cbdata);
void enable_nvtx_callbacks(CUpti_SubscriberHandle subscriber);

// The program's capture range (cuProfilerStart/Stop, kernel_profiler_capture.cpp): whether it is
// open, and the callback's handler (true where `id` was one of those calls).
bool capture_range_open();
// The graph launch and graph/context lifetime callbacks (kernel_profiler_graph.cpp).
void enable_graph_callbacks(CUpti_SubscriberHandle subscriber);
bool on_capture_call(CUpti_CallbackDomain domain, CUpti_CallbackId id);
void enable_capture_callbacks(CUpti_SubscriberHandle subscriber);

// The kernel nodes of an instantiated graph, in execution order (kernel_profiler_graph.cpp).
struct GraphKernels {
  std::vector<PendingLaunch> kernels;
  std::string unlisted;        // why its launches cannot be profiled node by node ("": they can)
  // Why a launch of it cannot be repeated per profiling pass ("": it can): a node whose
  // effect lies outside the context's memory (host callback, event, semaphore, allocation).
  std::string replay_blocker;
};

// Lists `graph`'s kernel nodes when it is instantiated: the program may destroy the graph
// right after, and a launch of the executable graph names no node.
GraphKernels list_graph_kernels(CUgraph graph, size_t max_kernels);

bool is_kernel_launch(CUpti_CallbackId id);
// Whether `stream` is capturing into a graph: such a launch only records a graph node.
bool is_captured(CUstream stream);
// The launch's name, function, stream, grid, block and dynamic shared memory.
PendingLaunch launch_of(CUpti_CallbackId id, const CUpti_CallbackData* data);
// Registers, static shared memory and occupancy: asked after the launch, when the module is
// loaded for sure (lazy loading).
void complete_launch_config(PendingLaunch& p);
// Where a profile came from: "launch N (name)" or "graph launch G, kernel node I of N (name)".
std::string launch_detail(const PendingLaunch& launch);

}  // namespace atomq::analyzer::detail
