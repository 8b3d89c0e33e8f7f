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

// The CUPTI range profiler of one context, in AutoRange + KernelReplay mode: every kernel
// launch while it is started becomes one range, replayed once per pass.
class ContextProfiler {
 public:
  ContextProfiler(CUcontext ctx, const std::vector<std::string>& metrics);
  ~ContextProfiler();  // stops and disables the profiler
  ContextProfiler(const ContextProfiler&) = delete;
  ContextProfiler& operator=(const ContextProfiler&) = delete;

  void start();  // both do nothing when already in that state
  void stop();
  // Most ranges one decode holds: a graph launch's kernel nodes are decoded together.
  static constexpr size_t kMaxRanges = 64;
  // Values of every range since the last call, in launch order (one value per metric).
  std::vector<std::vector<double>> collect();

  const MetricConfig& config() const { return *config_; }
  const model::DeviceInfo& device_info() const { return device_info_; }

 private:
  void set_config();
  void reset_counter_data();

  uint32_t device_ = 0;
  model::DeviceInfo device_info_;
  std::unique_ptr<MetricConfig> config_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  std::vector<uint8_t> counter_data_;
  bool running_ = false;
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
  bool keep = true;     // a graph's kernel node the filters leave out is profiled, then dropped
  std::optional<model::GraphNodeTag> graph;  // set for a graph's kernel node
};

// The kernel nodes of an instantiated graph, in execution order (kernel_profiler_graph.cpp).
struct GraphKernels {
  std::vector<PendingLaunch> kernels;
  std::string unlisted;        // why its launches cannot be profiled node by node ("": they can)
  bool order_certain = true;   // false: kernel nodes on parallel branches (their ranges' order assumed)
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

}  // namespace atomq::analyzer::detail
