// The profiling session: CUPTI subscription, launch callbacks, which launches to profile and
// turning decoded ranges into KernelProfiles.
#include "atomq/analyzer/kernel_profiler.hpp"

#include <cxxabi.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

#include "atomq/analyzer/metric_list.hpp"
#include "atomq/cuda/check.hpp"
#include "cupti_session_setup.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer {

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return mangled;
  std::string result(out);
  std::free(out);
  return result;
}

using detail::ContextProfiler;
using detail::PendingLaunch;

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
  SessionStats stats;
  long long matching_seen = 0;
  bool finished = false;

  bool wants(const std::string& mangled) {
    if (options.kernel_filter && !options.kernel_filter->matches(mangled, demangle(mangled))) return false;
    const long long ordinal = matching_seen++;
    if (ordinal < options.launch_skip) return false;
    if (options.launch_count >= 0 && ordinal >= options.launch_skip + options.launch_count) return false;
    return true;
  }

  ContextProfiler& profiler_for(CUcontext ctx) {
    if (active && active_ctx != ctx) {
      active.reset();
      active_ctx = nullptr;
    }
    if (!active) {
      active = std::make_unique<ContextProfiler>(ctx, options.metrics);
      active_ctx = ctx;
      stats.passes = active->config().passes();
    }
    return *active;
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
      detail::complete_launch_config(launch);
      model::KernelProfile profile;
      profile.kernel_name = demangle(launch.name);
      if (launch.name != detail::kUnknownKernel) profile.symbol = launch.name;
      profile.launch = launch.launch;
      profile.device = prof.device_info();
      profile.source = options.source;
      profile.source_detail = "launch " + std::to_string(launch.index) + " (" + launch.name + ")";
      const auto& names = prof.config().metrics();
      for (size_t i = 0; i < names.size() && i < values.size(); ++i) profile.counters[names[i]] = values[i];
      ++stats.launches_profiled;
      if (sink) sink(profile);
    }
    for (auto& leftover : queue) {
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
      bool on_device = true;
      if (options.device >= 0) {
        uint32_t dev = 0;
        on_device = cuptiGetDeviceId(ctx, &dev) == CUPTI_SUCCESS && static_cast<int>(dev) == options.device;
      }
      PendingLaunch launch = detail::launch_of(id, data);
      if (detail::is_captured(launch.stream)) {
        ++stats.graph_launches;  // recorded into a graph, profiled never
        if (ContextProfiler* prof = profiler_if_active(ctx)) prof->stop();
        return;
      }
      const bool profile = on_device && wants(name);
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

  static void CUPTIAPI callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                                const void* raw) {
    auto* self = static_cast<State*>(user);
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
      return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    const auto* data = static_cast<const CUpti_CallbackData*>(raw);
    // One kernel launch at a time from ENTER to EXIT across host threads: a range must be
    // decoded before another thread's launch starts or stops the profiler.
    const bool launch = detail::is_kernel_launch(id);
    if (launch && data->callbackSite == CUPTI_API_ENTER) self->launch_serial.lock();
    struct UnlockAtExit {
      State* self;
      bool active;
      ~UnlockAtExit() {
        if (active) self->launch_serial.unlock();
      }
    } unlock_at_exit{self, launch && data->callbackSite == CUPTI_API_EXIT};
    std::lock_guard<std::mutex> lock(self->mutex);
    try {
      if (id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
        if (data->callbackSite == CUPTI_API_ENTER) ++self->stats.graph_launches;
        return;
      }
      if (launch) self->on_launch(id, data);
    } catch (const std::exception& e) {
      // Never let an exception cross into the driver: the user's program keeps running.
      ++self->stats.failed;
      self->stats.last_error = e.what();
      spdlog::warn("profiling failed: {}", e.what());
      if (data->context) self->pending[data->context].clear();
    }
  }
};

KernelProfilingSession::KernelProfilingSession(ProfilerOptions options, ProfileSink sink)
    : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
  if (state_->options.metrics.empty()) state_->options.metrics = atomq_metric_names();
  state_->sink = std::move(sink);

  state_->subscriber = subscribe_to_launches(&State::callback, state_.get());
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz})
    ATOMQ_CUPTI(cuptiEnableCallback(1, state_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
  ATOMQ_CUPTI(cuptiEnableCallback(1, state_->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                  CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
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
  state_->active.reset();  // stops and disables the profiler
}

SessionStats KernelProfilingSession::stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->stats;
}

std::vector<model::KernelProfile> profile_launches(const std::function<void()>& work,
                                                   ProfilerOptions options, SessionStats* stats) {
  std::vector<model::KernelProfile> out;
  KernelProfilingSession session(std::move(options),
                                 [&out](const model::KernelProfile& p) { out.push_back(p); });
  work();
  session.finish();
  const SessionStats s = session.stats();
  if (stats) *stats = s;
  if (s.failed > 0) throw std::runtime_error("profiling failed for " + std::to_string(s.failed) + " launch(es): " + s.last_error);
  return out;
}

}  // namespace atomq::analyzer
