// The profiling session: CUPTI subscription, launch callbacks, which launches to profile and
// turning decoded ranges into KernelProfiles.
#include "atomq/analyzer/kernel_profiler.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>
#include <unistd.h>
#include <utility>

#include "atomq/analyzer/loaded_code.hpp"
#include "atomq/analyzer/metric_list.hpp"
#include "atomq/cuda/check.hpp"
#include "cupti_session_setup.hpp"
#include "driver_api.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer {

using detail::ContextProfiler;
using detail::GraphKernels;
using detail::GraphReplay;
using detail::PendingLaunch;

namespace {

// A demangled name without its parameter list, for a graph profile's name.
std::string short_name(const std::string& demangled) {
  const size_t paren = demangled.find('(');
  return paren == std::string::npos ? demangled : demangled.substr(0, paren);
}

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

// Adds the seconds of its scope to `total`.
struct AddsElapsed {
  explicit AddsElapsed(double& t) : total(t) {}
  ~AddsElapsed() { total += seconds_since(started); }
  double& total;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

// Most kernel nodes a profiled graph may have (their names go into its profile).
constexpr size_t kMaxGraphKernels = 4096;


}  // namespace

struct KernelProfilingSession::State {
  ProfilerOptions options;
  ProfileSink sink;
  CUpti_SubscriberHandle subscriber = nullptr;
  mutable std::mutex mutex;
  std::mutex launch_serial;  // held from a launch's ENTER callback to its EXIT callback
  // One context is profiled at a time (counters are per device): switching to a launch in
  // another context stops and disables the previous context's profiler first.
  CUcontext active_ctx = nullptr;
  std::unique_ptr<ContextProfiler> active;
  std::map<CUcontext, std::deque<PendingLaunch>> pending;
  std::map<CUgraphExec, GraphKernels> graphs;  // listed at instantiation
  std::map<uint32_t, std::shared_ptr<const MetricConfig>> configs;  // by device
  std::unique_ptr<GraphReplay> replay;  // the graph launch between its ENTER and EXIT callbacks
  CUcontext replay_ctx = nullptr;
  std::string replay_off_reason;  // set when a failure turned graph replay off
  long long graph_launch_ordinal = 0;
  SessionStats stats;
  // Set when options.loaded_code_directory is. Its own mutex: a module may load inside a driver
  // call atomq makes while holding `mutex` (lazy loading), and its callback must not wait for it.
  std::unique_ptr<LoadedCodeStore> code;
  std::mutex code_mutex;
  double seconds_keeping_code = 0;  // under code_mutex
  std::chrono::steady_clock::time_point launch_entered;  // under launch_serial
  bool save_failure_warned = false;
  bool bound_warned = false;
  long long matching_seen = 0;
  // Direct launches per kernel, filtered ones too: which of a kernel's launches a profile is, the
  // way the per-instruction run counts them (instruction_profiler.cpp).
  std::map<std::string, long long> launches_of_kernel;
  bool finished = false;
  bool first_profiled_seen = false;  // before_first_profiled_launch has been called

  bool wants(const std::string& mangled, const std::vector<std::string>& nvtx) {
    if (options.kernel_filter && !options.kernel_filter->matches(mangled, demangle(mangled))) return false;
    if (options.nvtx_filter && !options.nvtx_filter->selects(nvtx)) return false;
    if (!options.profile_from_start && !detail::capture_range_open()) return false;
    const long long ordinal = matching_seen++;
    if (ordinal < options.launch_skip) return false;
    if (options.launch_count >= 0 && ordinal >= options.launch_skip + options.launch_count) return false;
    if (!std::exchange(first_profiled_seen, true) && options.before_first_profiled_launch)
      options.before_first_profiled_launch();
    return true;
  }

  ContextProfiler& profiler_for(CUcontext ctx) {
    if (active && active_ctx != ctx) {
      active.reset();
      active_ctx = nullptr;
    }
    if (!active) {
      active = std::make_unique<ContextProfiler>(ctx, config_for(ctx));
      active_ctx = ctx;
      stats.passes = active->config().passes();
    }
    return *active;
  }

  std::shared_ptr<const MetricConfig> config_for(CUcontext ctx) {
    uint32_t device = 0;
    ATOMQ_CUPTI(cuptiGetDeviceId(ctx, &device));
    auto& config = configs[device];
    const AddsElapsed timed(stats.seconds_configuring);
    if (!config) config = ContextProfiler::configure(ctx, options.metrics);
    return config;
  }

  ContextProfiler* profiler_if_active(CUcontext ctx) { return active && active_ctx == ctx ? active.get() : nullptr; }

  void emit(CUcontext ctx, ContextProfiler& prof) {
    auto ranges = prof.collect();
    auto& queue = pending[ctx];
    for (auto& values : ranges) {
      if (queue.empty()) {
        ++stats.failed;
        stats.last_error = "a profiled range had no matching launch";
        continue;
      }
      PendingLaunch launch = std::move(queue.front());
      queue.pop_front();
      if (!launch.keep) continue;
      detail::complete_launch_config(launch);
      model::KernelProfile profile;
      profile.kernel_name = demangle(launch.name);
      if (launch.name != detail::kUnknownKernel) profile.symbol = launch.name;
      profile.launch = launch.launch;
      profile.device = prof.device_info();
      profile.source = options.source;
      profile.source_detail = detail::launch_detail(launch);
      profile.symbol_launch = launch.symbol_launch;
      profile.nvtx = launch.nvtx;
      profile.graph = launch.graph;
      const auto& names = prof.config().metrics();
      for (size_t i = 0; i < names.size() && i < values.size(); ++i) profile.counters[names[i]] = values[i];
      ++stats.launches_profiled;
      if (sink) sink(profile);
      if (model::executes_atomics(profile)) save_code_of(launch.name);  // the SASS is read for atomic hints only
    }
    for (auto& leftover : queue) {
      if (!leftover.keep) continue;
      ++stats.failed;
      stats.last_error = "no counter data for launch of " + demangle(leftover.name);
    }
    queue.clear();
  }

  void on_launch(CUpti_CallbackId id, const CUpti_CallbackData* data) {
    if (finished) return;
    CUcontext ctx = data->context;
    if (data->callbackSite == CUPTI_API_ENTER) {
      ++stats.launches_seen;
      const std::string name = data->symbolName ? data->symbolName : "";
      PendingLaunch launch = detail::launch_of(id, data);
      if (detail::is_captured(launch.stream)) {
        ++stats.captured_launches;  // recorded into a graph: profiled when the graph runs
        --stats.launches_seen;
        if (ContextProfiler* prof = profiler_if_active(ctx)) prof->stop();
        return;
      }
      if (!name.empty()) launch.symbol_launch = launches_of_kernel[name]++;
      launch.nvtx = detail::open_nvtx_ranges();
      const bool profile = on_device(ctx) && wants(name, launch.nvtx);
      if (!profile) {
        ++stats.launches_filtered;
        if (ContextProfiler* prof = profiler_if_active(ctx)) prof->stop();
        return;
      }
      ContextProfiler& prof = profiler_for(ctx);
      launch.index = stats.launches_seen - 1;
      pending[ctx].push_back(std::move(launch));
      prof.start();
    } else {
      ContextProfiler* prof = profiler_if_active(ctx);
      if (prof == nullptr || pending[ctx].empty()) return;
      emit(ctx, *prof);
    }
  }

  bool on_device(CUcontext ctx) const {
    if (options.device < 0) return true;
    uint32_t dev = 0;
    return cuptiGetDeviceId(ctx, &dev) == CUPTI_SUCCESS && static_cast<int>(dev) == options.device;
  }

  // A graph launch: profiled as one range over all its kernel nodes, the launch repeated once
  // per pass from a device-memory checkpoint (GraphReplay), or not at all. Never in kernel
  // replay: CUPTI then makes one range of the first kernel node, and the later nodes' writes
  // are lost from the program's memory (measured: tests/gpu/targets/graph_app.cu).
  void on_graph_launch(const CUpti_CallbackData* data) {
    if (finished) return;
    CUcontext ctx = data->context;
    if (data->callbackSite != CUPTI_API_ENTER) {
      if (replay && replay_ctx == ctx) {
        std::unique_ptr<GraphReplay> r = std::move(replay);
        replay_ctx = nullptr;
        finish_replay(ctx, *r);
      }
      return;
    }
    const auto* params = static_cast<const cuGraphLaunch_params*>(data->functionParams);
    const auto listed = graphs.find(params->hGraph);
    if (ContextProfiler* prof = profiler_if_active(ctx)) prof->stop();
    std::string why_not;
    if (listed == graphs.end())
      why_not = "the graph was instantiated before profiling started";
    else if (!listed->second.unlisted.empty())
      why_not = listed->second.unlisted;
    else if (!options.replay_graphs)
      why_not = replay_off_reason.empty() ? "graph replay is off (--no-graph-replay)" : replay_off_reason;
    else if (!listed->second.replay_blocker.empty())
      why_not = "a graph launch cannot be repeated per profiling pass: " + listed->second.replay_blocker;
    if (!why_not.empty()) {
      ++stats.graph_launches;  // not profiled: why is in the warning below
      stats.graph_note = why_not;
      return;
    }
    const long long ordinal = graph_launch_ordinal++;
    std::vector<PendingLaunch> nodes = listed->second.kernels;
    bool any = false;
    const bool here = on_device(ctx);
    for (size_t i = 0; i < nodes.size(); ++i) {
      PendingLaunch& node = nodes[i];
      node.index = stats.launches_seen++;
      node.graph = model::GraphNodeTag{ordinal, static_cast<int>(i), static_cast<int>(nodes.size())};
      node.nvtx = detail::open_nvtx_ranges();
      node.keep = here && wants(node.name, node.nvtx);
      if (!node.keep) ++stats.launches_filtered;
      any = any || node.keep;
    }
    if (!any) return;
    if (!begin_replay(ctx, *params)) {
      ++stats.graph_launches;
      return;
    }
    ++stats.graph_launches_profiled;
    for (auto& node : nodes) pending[ctx].push_back(std::move(node));
  }

  // Starts profiling the graph launch about to run; false (why in the graph note) when it cannot.
  bool begin_replay(CUcontext ctx, const cuGraphLaunch_params& params) {
    active.reset();  // one range profiler object per context at a time
    active_ctx = nullptr;
    try {
      replay = std::make_unique<GraphReplay>(ctx, config_for(ctx), params.hGraph, params.hStream);
      replay_ctx = ctx;
      return true;
    } catch (const std::exception& e) {
      replay.reset();
      turn_replay_off(std::string("profiling a graph launch failed to start (") + e.what() + ")");
      return false;
    }
  }

  void turn_replay_off(const std::string& why) {
    options.replay_graphs = false;
    replay_off_reason = why + "; graph launches from then on were not profiled";
    stats.graph_note = replay_off_reason;
    spdlog::warn("{}", replay_off_reason);
  }

  // The passes after the program's own graph launch, then its one range as a profile of the
  // whole launch. A failure turns replay off for the session; this launch's kernel nodes are
  // counted as not profiled.
  void finish_replay(CUcontext ctx, GraphReplay& r) {
    auto& queue = pending[ctx];
    std::vector<PendingLaunch> nodes(std::make_move_iterator(queue.begin()), std::make_move_iterator(queue.end()));
    queue.clear();
    std::vector<std::vector<double>> ranges;
    try {
      r.finish();
      ranges = r.profiler().collect();
      if (ranges.size() != 1)
        throw std::runtime_error("the range profiler gave " + std::to_string(ranges.size()) +
                                 " ranges for one graph launch");
    } catch (const std::exception& e) {
      stats.graph_nodes_not_profiled += static_cast<long long>(nodes.size());
      turn_replay_off(std::string("profiling a graph launch failed (") + e.what() + ")");
      return;
    }
    emit_whole_graph(std::move(nodes), r.profiler(), ranges.front());
  }

  void emit_whole_graph(std::vector<PendingLaunch> nodes, const ContextProfiler& prof, const std::vector<double>& values) {
    if (nodes.empty() || std::none_of(nodes.begin(), nodes.end(), [](const PendingLaunch& n) { return n.keep; })) return;
    PendingLaunch& first = nodes.front();
    detail::complete_launch_config(first);
    model::KernelProfile profile;
    profile.launch = first.launch;  // the first kernel node's: a graph has no one launch shape
    profile.device = prof.device_info();
    profile.source = options.source;
    model::GraphNodeTag tag = *first.graph;
    if (nodes.size() == 1) {  // the range is the one kernel node's
      profile.kernel_name = demangle(first.name);
      if (first.name != detail::kUnknownKernel) profile.symbol = first.name;
      profile.source_detail = launch_detail(first);
    } else {
      std::string names;
      for (const PendingLaunch& n : nodes) {
        tag.kernels.push_back(demangle(n.name));
        names += (names.empty() ? "" : " + ") + short_name(tag.kernels.back());
      }
      tag.node = 0;
      profile.kernel_name = "graph(" + names + ")";
      profile.source_detail = "graph launch " + std::to_string(tag.graph_launch) + ", one range over its " +
                              std::to_string(tag.nodes) + " kernel nodes: " + names;
    }
    profile.graph = std::move(tag);
    // SASS-patched counters (smsp__sass_*) read 0 over a user range around a graph launch
    // where its kernels' direct launches count (measured): left out rather than reported as 0.
    // sm__sass_* (the bulk reductions' count) are instruction counts of the same kind: left out too.
    const auto& metric_names = prof.config().metrics();
    for (size_t i = 0; i < metric_names.size() && i < values.size(); ++i)
      if (metric_names[i].find("__sass_") == std::string::npos) profile.counters[metric_names[i]] = values[i];
    ++stats.launches_profiled;
    if (sink) sink(profile);
    for (const PendingLaunch& n : nodes) save_code_of(n.name);
  }

  // Keeps the code object of a profiled kernel for its SASS (loaded_code.hpp); a failure is
  // one warning, never the program's.
  void save_code_of(const std::string& mangled) {
    if (!code || mangled == detail::kUnknownKernel) return;
    std::lock_guard<std::mutex> lock(code_mutex);
    const AddsElapsed timed(seconds_keeping_code);
    try {
      code->save_holding(mangled);
    } catch (const std::exception& e) {
      if (!save_failure_warned) spdlog::warn("saving a loaded code object failed: {}", e.what());
      save_failure_warned = true;
    }
  }

  void on_module_resource(CUpti_CallbackId id, const CUpti_ResourceData* resource) {
    const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
    if (!code || module == nullptr) return;
    std::lock_guard<std::mutex> lock(code_mutex);
    const AddsElapsed timed(seconds_keeping_code);
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      code->loaded(module->moduleId, module->pCubin, module->cubinSize);
      if (code->modules_refused() > 0 && !bound_warned) {
        spdlog::warn("the program's loaded code objects exceed {} MiB: the SASS of later modules is not kept",
                     LoadedCodeStore::kDefaultMaxBytes >> 20);
        bound_warned = true;
      }
    } else if (id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
      code->unloading(module->moduleId);
    }
  }

  void on_graph_resource(CUpti_CallbackId id, const CUpti_ResourceData* resource) {
    const auto* graph = static_cast<const CUpti_GraphData*>(resource->resourceDescriptor);
    if (graph == nullptr) return;
    if (id == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED)
      graphs[graph->graphExec] = detail::list_graph_kernels(graph->graph, kMaxGraphKernels);
    else if (id == CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING)
      graphs.erase(graph->graphExec);
  }

  static void CUPTIAPI callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                const void* raw) {
    auto* self = static_cast<State*>(user);
    if (domain == CUPTI_CB_DOMAIN_NVTX) return detail::on_nvtx(id, raw);  // this thread's ranges
    if (detail::on_capture_call(domain, id)) return;                        // cuProfilerStart/Stop
    // Modules load whoever runs (a lazy load may happen inside atomq's own graph relaunch).
    if (domain == CUPTI_CB_DOMAIN_RESOURCE &&
        (id == CUPTI_CBID_RESOURCE_MODULE_LOADED || id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING)) {
      try {
        self->on_module_resource(id, static_cast<const CUpti_ResourceData*>(raw));
      } catch (const std::exception& e) {  // never into the driver
        spdlog::warn("keeping a loaded module's code failed: {}", e.what());
      } catch (...) {
      }
      return;
    }
    if (GraphReplay::replaying_on_this_thread()) return;  // atomq's own relaunch of a graph
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      // Disable the profiler while its context still exists.
      const auto* resource = static_cast<const CUpti_ResourceData*>(raw);
      std::lock_guard<std::mutex> lock(self->mutex);
      if (self->active && self->active_ctx == resource->context) {
        try {
          self->active.reset();
        } catch (...) {
        }
        self->active_ctx = nullptr;
      }
      if (self->replay_ctx == resource->context) {
        self->replay.reset();
        self->replay_ctx = nullptr;
      }
      return;
    }
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
      std::lock_guard<std::mutex> lock(self->mutex);
      try {
        self->on_graph_resource(id, static_cast<const CUpti_ResourceData*>(raw));
      } catch (const std::exception& e) {  // never into the driver
        spdlog::warn("listing a graph's kernel nodes failed: {}", e.what());
      }
      return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    const auto* data = static_cast<const CUpti_CallbackData*>(raw);
    const bool graph_launch =
        id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
    // One kernel or graph launch at a time from ENTER to EXIT across host threads: a range must
    // be decoded before another thread's launch starts or stops the profiler.
    const bool launch = detail::is_kernel_launch(id) || graph_launch;
    if (launch && data->callbackSite == CUPTI_API_ENTER) {
      self->launch_serial.lock();
      self->launch_entered = std::chrono::steady_clock::now();
    }
    struct UnlockAtExit {
      State* self;
      bool active;
      ~UnlockAtExit() {
        if (active) self->launch_serial.unlock();
      }
    } unlock_at_exit{self, launch && data->callbackSite == CUPTI_API_EXIT};
    std::lock_guard<std::mutex> lock(self->mutex);
    try {
      if (graph_launch)
        self->on_graph_launch(data);
      else if (launch)
        self->on_launch(id, data);
    } catch (const std::exception& e) {
      // Never let an exception cross into the driver: the user's program keeps running.
      ++self->stats.failed;
      self->stats.last_error = e.what();
      spdlog::warn("profiling failed: {}", e.what());
      if (data->context) self->pending[data->context].clear();
    }
    if (unlock_at_exit.active) self->stats.seconds_in_launches += seconds_since(self->launch_entered);
  }
};

KernelProfilingSession::KernelProfilingSession(ProfilerOptions options, ProfileSink sink)
    : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  if (state_->options.metrics.empty()) state_->options.metrics = collector_metric_names(state_->options.sector_counters);
  state_->sink = std::move(sink);

  state_->subscriber = subscribe_to_launches(&State::callback, state_.get());
  detail::enable_nvtx_callbacks(state_->subscriber);
  if (!state_->options.profile_from_start) detail::enable_capture_callbacks(state_->subscriber);
  detail::enable_graph_callbacks(state_->subscriber);
  if (!state_->options.loaded_code_directory.empty()) {
    state_->code = std::make_unique<LoadedCodeStore>(state_->options.loaded_code_directory,
                                                     std::to_string(getpid()));
    for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING})
      ATOMQ_CUPTI(cuptiEnableCallback(1, state_->subscriber, CUPTI_CB_DOMAIN_RESOURCE, id));
  }
}

KernelProfilingSession::~KernelProfilingSession() {
  try {
    finish();
  } catch (...) {
  }
}

void KernelProfilingSession::finish() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->finished) return;
  state_->finished = true;
  if (state_->subscriber) {
    cuptiUnsubscribe(state_->subscriber);
    state_->subscriber = nullptr;
  }
  state_->replay.reset();
  state_->active.reset();  // stops and disables the profiler
}

SessionStats KernelProfilingSession::stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  SessionStats s = state_->stats;
  std::lock_guard<std::mutex> code_lock(state_->code_mutex);
  s.seconds_keeping_code = state_->seconds_keeping_code;
  return s;
}

}  // namespace atomq::analyzer
