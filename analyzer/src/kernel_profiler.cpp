#include "atomq/analyzer/kernel_profiler.hpp"

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cxxabi.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

#include "atomq/analyzer/metric_config.hpp"
#include "atomq/analyzer/metric_list.hpp"
#include "atomq/cuda_check.hpp"
#include "cupti_session_setup.hpp"
#include "driver_api.hpp"

namespace atomq::analyzer {

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return mangled;
  std::string result(out);
  std::free(out);
  return result;
}

namespace {

constexpr size_t kMaxRangesPerDecode = 4;  // decoded after every launch: one range each

model::DeviceInfo describe(uint32_t ordinal, const std::string& chip) {
  model::DeviceInfo d;
  d.chip = chip;
  const DriverApi& api = DriverApi::get();
  CUdevice dev = 0;
  if (api.device_get && api.device_get(&dev, static_cast<int>(ordinal)) == CUDA_SUCCESS) {
    char name[256] = {};
    if (api.device_get_name && api.device_get_name(name, sizeof name, dev) == CUDA_SUCCESS) d.name = name;
    int v = 0;
    if (api.device_get_attribute) {
      if (api.device_get_attribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == CUDA_SUCCESS) d.sm_count = v;
      if (api.device_get_attribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev) == CUDA_SUCCESS)
        d.max_warps_per_sm = v / 32;
      if (api.device_get_attribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS)
        d.compute_capability_major = v;
      if (api.device_get_attribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS)
        d.compute_capability_minor = v;
    }
  }
  return d;
}

// The range profiler of one context.
class ContextProfiler {
 public:
  ContextProfiler(CUcontext ctx, const std::vector<std::string>& metrics) {
    initialize_profiler_once();
    ATOMQ_CUPTI(cuptiGetDeviceId(ctx, &device_));
    device_info_ = describe(device_, cupti_chip_name(device_));
    config_ = std::make_unique<MetricConfig>(device_info_.chip, metrics, counter_availability(ctx));

    CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    enable.ctx = ctx;
    ATOMQ_CUPTI(cuptiRangeProfilerEnable(&enable));
    object_ = enable.pRangeProfilerObject;

    std::vector<const char*> names = c_strings(config_->metrics());
    CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pRangeProfilerObject = object_;
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = kMaxRangesPerDecode;
    size.maxNumRangeTreeNodes = kMaxRangesPerDecode;
    ATOMQ_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
    counter_data_.resize(size.counterDataSize);
    reset_counter_data();

    CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    set.pRangeProfilerObject = object_;
    set.configSize = config_->config_image().size();
    set.pConfig = config_->config_image().data();
    set.counterDataImageSize = counter_data_.size();
    set.pCounterDataImage = counter_data_.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kMaxRangesPerDecode;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    ATOMQ_CUPTI(cuptiRangeProfilerSetConfig(&set));
  }

  ~ContextProfiler() {
    try {
      stop();
    } catch (...) {
    }
    CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    disable.pRangeProfilerObject = object_;
    cuptiRangeProfilerDisable(&disable);
  }

  void start() {
    if (running_) return;
    CUpti_RangeProfiler_Start_Params p{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    ATOMQ_CUPTI(cuptiRangeProfilerStart(&p));
    running_ = true;
  }

  void stop() {
    if (!running_) return;
    CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    running_ = false;
    ATOMQ_CUPTI(cuptiRangeProfilerStop(&p));
  }

  // Values of every range since the last call, in launch order.
  std::vector<std::vector<double>> collect() {
    CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = object_;
    ATOMQ_CUPTI(cuptiRangeProfilerDecodeData(&decode));
    if (decode.numOfRangeDropped > 0) spdlog::warn("{} profiled ranges were dropped", decode.numOfRangeDropped);
    CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = counter_data_.data();
    info.counterDataImageSize = counter_data_.size();
    ATOMQ_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&info));
    std::vector<std::vector<double>> ranges;
    for (size_t r = 0; r < info.numTotalRanges; ++r) ranges.push_back(config_->evaluate(counter_data_, r));
    reset_counter_data();
    return ranges;
  }

  const MetricConfig& config() const { return *config_; }
  const model::DeviceInfo& device_info() const { return device_info_; }

 private:
  void reset_counter_data() {
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params p{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = object_;
    p.counterDataSize = counter_data_.size();
    p.pCounterData = counter_data_.data();
    ATOMQ_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&p));
  }

  uint32_t device_ = 0;
  model::DeviceInfo device_info_;
  std::unique_ptr<MetricConfig> config_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  std::vector<uint8_t> counter_data_;
  bool running_ = false;
};

struct PendingLaunch {
  std::string name;
  model::LaunchConfig launch;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  long long index = 0;
};

// A launch into a capturing stream only records a graph node: nothing runs, and the sync
// that decoding needs would invalidate the capture.
bool is_captured(CUstream stream) {
  const DriverApi& api = DriverApi::get();
  if (api.stream_is_capturing == nullptr) return false;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (api.stream_is_capturing(stream, &status) != CUDA_SUCCESS) return false;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool is_kernel_launch(CUpti_CallbackId id) {
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return true;
    default:
      return false;
  }
}

// cuLaunchKernel and cuLaunchCooperativeKernel take the same launch fields.
template <typename Params>
void copy_launch_params(const Params& a, PendingLaunch& p) {
  p.function = a.f;
  p.stream = a.hStream;
  p.launch.grid = {a.gridDimX, a.gridDimY, a.gridDimZ};
  p.launch.block = {static_cast<int>(a.blockDimX), static_cast<int>(a.blockDimY), static_cast<int>(a.blockDimZ)};
  p.launch.shared_mem_bytes_per_block = a.sharedMemBytes;
}

PendingLaunch launch_of(CUpti_CallbackId id, const CUpti_CallbackData* data) {
  PendingLaunch p;
  p.name = data->symbolName ? data->symbolName : "<unknown kernel>";
  auto& l = p.launch;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      copy_launch_params(*static_cast<const cuLaunchKernel_params*>(data->functionParams), p);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      copy_launch_params(*static_cast<const cuLaunchCooperativeKernel_params*>(data->functionParams), p);
      break;
    default: {  // cuLaunchKernelEx(_ptsz)
      const auto* a = static_cast<const cuLaunchKernelEx_params*>(data->functionParams);
      p.function = a->f;
      if (a->config != nullptr) {
        p.stream = a->config->hStream;
        l.grid = {a->config->gridDimX, a->config->gridDimY, a->config->gridDimZ};
        l.block = {static_cast<int>(a->config->blockDimX), static_cast<int>(a->config->blockDimY),
                   static_cast<int>(a->config->blockDimZ)};
        l.shared_mem_bytes_per_block = a->config->sharedMemBytes;
      }
      break;
    }
  }
  return p;
}

// Registers, static shared memory and occupancy: asked after the launch, when the module
// is loaded for sure (lazy loading).
void complete_launch_config(PendingLaunch& p) {
  const DriverApi& api = DriverApi::get();
  if (p.function == nullptr || api.func_get_attribute == nullptr) return;
  int regs = 0, static_smem = 0;
  // The runtime may hand the driver a context-independent CUkernel: resolve it to this
  // context's CUfunction, or load the function, before asking for its attributes.
  if (api.func_get_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, p.function) != CUDA_SUCCESS || regs == 0) {
    CUfunction resolved = nullptr;
    if (api.kernel_get_function &&
        api.kernel_get_function(&resolved, reinterpret_cast<CUkernel>(p.function)) == CUDA_SUCCESS && resolved)
      p.function = resolved;
    else if (api.func_load)
      api.func_load(p.function);
    if (api.func_get_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, p.function) != CUDA_SUCCESS) regs = 0;
  }
  p.launch.registers_per_thread = regs;
  const long long dynamic_smem = p.launch.shared_mem_bytes_per_block;
  if (api.func_get_attribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, p.function) == CUDA_SUCCESS)
    p.launch.shared_mem_bytes_per_block += static_smem;
  int blocks = 0;
  if (api.occupancy &&
      api.occupancy(&blocks, p.function, static_cast<int>(p.launch.threads_per_block()),
                    static_cast<size_t>(dynamic_smem)) == CUDA_SUCCESS)
    p.launch.max_active_blocks_per_sm = blocks;
}

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
  SessionStats stats;
  long long matching_seen = 0;
  bool finished = false;

  bool wants(const std::string& mangled) {
    if (options.kernel_filter) {
      if (!std::regex_search(mangled, *options.kernel_filter) &&
          !std::regex_search(demangle(mangled), *options.kernel_filter))
        return false;
    }
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
      complete_launch_config(launch);
      model::KernelProfile profile;
      profile.kernel_name = demangle(launch.name);
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
      PendingLaunch launch = launch_of(id, data);
      if (is_captured(launch.stream)) {
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
    const bool launch = is_kernel_launch(id);
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

  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  CUpti_SubscriberParams params{CUpti_SubscriberParams_STRUCT_SIZE};
  params.subscriberName = "atomq";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof holder - 1;
  const CUptiResult rc = cuptiSubscribe_v2(&state_->subscriber, &State::callback, state_.get(), &params);
  if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    throw std::runtime_error(std::string("another profiler already holds CUPTI in this process (") +
                             (holder[0] ? holder : "unknown") +
                             "): run atomq without ncu, nsys, compute-sanitizer or a framework profiler");
  ATOMQ_CUPTI(rc);
  for (CUpti_CallbackId id :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz})
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
