// The SASS Metrics API session (atomq/analyzer/instruction_profiler.hpp). The call order is
// CUPTI's: profiler initialized, SetConfig once, Enable (lazy patching) right before the
// kernel's first launch, then after its last counted launch: synchronize, GetDataProperties
// directly before FlushData (a second query doubles the count), Disable, UnsetConfig.
#include "atomq/analyzer/instruction_profiler.hpp"

#include <cupti.h>
#include <cupti_sass_metrics.h>
#include <spdlog/spdlog.h>

#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "atomq/analyzer/kernel_profiler.hpp"  // demangle
#include "atomq/cuda/check.hpp"
#include "cupti_session_setup.hpp"
#include "driver_api.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer {

namespace {

// The SASS metrics the session collects, in the order of InstructionRecord's fields.
constexpr int kInstructionMetricCount = 4;
constexpr const char* kMetricNames[kInstructionMetricCount] = {
    "smsp__sass_inst_executed", "smsp__sass_thread_inst_executed_pred_on",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal"};

// The record field each metric fills, in kMetricNames order.
double& field(model::InstructionRecord& r, int metric) {
  switch (metric) {
    case 0: return r.executions;
    case 1: return r.lanes;
    case 2: return r.wavefronts;
    default: return r.wavefronts_ideal;
  }
}

}  // namespace


struct InstructionProfilingSession::State {
  InstructionCollectorOptions options;
  InstructionSink sink;
  InstructionErrorSink on_error;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::mutex mutex;
  bool enabled = false, done = false;
  CUcontext ctx = nullptr;
  uint32_t device = 0;
  long long launches = 0;
  double threads = 0;  // of the counted launches: a derived launch's loop entries may scale by them
  std::map<uint64_t, int> metric_index;  // CUPTI metric id -> kMetricNames index

  void enable(CUcontext context) {
    initialize_profiler_once();
    ATOMQ_CUPTI(cuptiGetDeviceId(context, &device));
    const std::string chip = cupti_chip_name(device);
    std::vector<CUpti_SassMetrics_Config> configs;
    for (int i = 0; i < kInstructionMetricCount; ++i) {
      CUpti_SassMetrics_GetProperties_Params props{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
      props.pChipName = chip.c_str();
      props.pMetricName = kMetricNames[i];
      if (cuptiSassMetricsGetProperties(&props) != CUPTI_SUCCESS)
        throw std::runtime_error(std::string("SASS metric ") + kMetricNames[i] + " is not available on " + chip);
      metric_index[props.metric.metricId] = i;
      // SMSP granularity: exact at every granularity, and the cheapest to patch.
      configs.push_back({props.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_SMSP});
    }
    CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    set.numOfMetricConfig = configs.size();
    set.pConfigs = configs.data();
    set.deviceIndex = device;
    ATOMQ_CUPTI(cuptiSassMetricsSetConfig(&set));
    CUpti_SassMetricsEnable_Params en{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
    en.ctx = context;
    en.enableLazyPatching = 1;
    ATOMQ_CUPTI(cuptiSassMetricsEnable(&en));
    ctx = context;
    enabled = true;
  }

  InstructionCounts flush() {
    CUpti_SassMetricsGetDataProperties_Params props{CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
    props.ctx = ctx;
    ATOMQ_CUPTI(cuptiSassMetricsGetDataProperties(&props));
    const size_t records = props.numOfPatchedInstructionRecords, instances = props.numOfInstances;
    std::vector<CUpti_SassMetrics_InstanceValue> values(records * std::max<size_t>(instances, 1));
    std::vector<CUpti_SassMetrics_Data> data(records);
    for (size_t i = 0; i < records; ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = &values[i * instances];
    }
    if (records > 0) {
      CUpti_SassMetricsFlushData_Params flush{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
      flush.ctx = ctx;
      flush.numOfPatchedInstructionRecords = records;
      flush.numOfInstances = instances;
      flush.pMetricsData = data.data();
      ATOMQ_CUPTI(cuptiSassMetricsFlushData(&flush));
    }
    // One record per (PC, metric): sum its instances (SMSPs) into the PC's field.
    std::map<long long, model::InstructionRecord> by_offset;
    for (const CUpti_SassMetrics_Data& d : data) {
      if (d.functionName == nullptr || options.symbol != d.functionName) continue;
      model::InstructionRecord& r = by_offset[d.pcOffset];
      r.offset = d.pcOffset;
      for (size_t k = 0; k < instances; ++k) {
        const auto it = metric_index.find(d.pInstanceValues[k].metricId);
        if (it != metric_index.end()) field(r, it->second) += static_cast<double>(d.pInstanceValues[k].value);
      }
    }
    InstructionCounts counts;
    counts.symbol = options.symbol;
    counts.profile.launches = launches;
    // Counting starts at the kernel's first direct launch in this process: launch 0.
    counts.profile.first_launch = 0;
    counts.profile.threads_per_launch = launches > 0 ? threads / static_cast<double>(launches) : 0;
    for (auto& [offset, r] : by_offset) counts.profile.records.push_back(std::move(r));
    spdlog::info("per-instruction counts of {}: {} record(s), {} PC(s), {} launch(es)", options.symbol, records,
                 counts.profile.records.size(), launches);
    return counts;
  }

  void disable() {
    if (!enabled) return;
    enabled = false;
    CUpti_SassMetricsDisable_Params dis{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    dis.ctx = ctx;
    cuptiSassMetricsDisable(&dis);
    CUpti_SassMetricsUnsetConfig_Params unset{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    unset.deviceIndex = device;
    cuptiSassMetricsUnsetConfig(&unset);
  }

  // Synchronize, flush, hand over, disable: once.
  void complete() {
    done = true;
    const DriverApi& api = DriverApi::get();
    if (api.ctx_synchronize) api.ctx_synchronize();
    InstructionCounts counts = flush();
    disable();
    if (counts.profile.records.empty())
      throw std::runtime_error("no per-instruction records for " + options.symbol);
    if (sink) sink(counts);
  }

  // The kernel this session counts: its symbol, or with none yet the first that the filter selects.
  bool counts(const CUpti_CallbackData* data) {
    if (data->symbolName == nullptr) return false;
    if (!options.symbol.empty()) return options.symbol == data->symbolName;
    if (data->callbackSite != CUPTI_API_ENTER || !options.filter ||
        !options.filter->matches(data->symbolName, demangle(data->symbolName)))
      return false;
    options.symbol = data->symbolName;
    return true;
  }

  void on_launch(CUpti_CallbackId id, const CUpti_CallbackData* data) {
    if (done) return;
    if (data->callbackSite == CUPTI_API_ENTER) {
      const detail::PendingLaunch launch = detail::launch_of(id, data);
      if (detail::is_captured(launch.stream)) return;  // runs later, in a graph
      if (!counts(data)) return;
      if (!enabled) enable(data->context);
      ++launches;
      threads += static_cast<double>(launch.launch.threads_per_block() * launch.launch.blocks());
    } else if (enabled && counts(data) && launches >= options.launch_count) {
      complete();
    }
  }

  void fail(const std::string& what) {
    done = true;
    try {
      disable();
    } catch (...) {
    }
    spdlog::warn("per-instruction collection failed: {}", what);
    if (on_error) on_error(what);
  }

  static void CUPTIAPI callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* raw) {
    auto* self = static_cast<State*>(user);
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || !detail::is_kernel_launch(id)) return;
    std::lock_guard<std::mutex> lock(self->mutex);
    try {
      self->on_launch(id, static_cast<const CUpti_CallbackData*>(raw));
    } catch (const std::exception& e) {
      self->fail(e.what());  // never into the driver: the program keeps running
    } catch (...) {
      self->fail("unknown error");
    }
  }
};

InstructionProfilingSession::InstructionProfilingSession(InstructionCollectorOptions options, InstructionSink sink,
                                                         InstructionErrorSink on_error)
    : state_(std::make_unique<State>()) {
  if (options.symbol.empty() && !options.filter)
    throw std::invalid_argument("per-instruction collection needs a kernel symbol or filter");
  state_->options = std::move(options);
  state_->options.launch_count = std::max<long long>(1, state_->options.launch_count);
  state_->sink = std::move(sink);
  state_->on_error = std::move(on_error);
  state_->subscriber = subscribe_to_launches(&State::callback, state_.get());
}

InstructionProfilingSession::~InstructionProfilingSession() {
  try {
    finish();
  } catch (...) {
  }
}

void InstructionProfilingSession::finish() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (state_->enabled && !state_->done) {
    try {
      state_->complete();
    } catch (const std::exception& e) {
      state_->fail(e.what());
    }
  }
  if (state_->subscriber) {
    cuptiUnsubscribe(state_->subscriber);
    state_->subscriber = nullptr;
  }
}

}  // namespace atomq::analyzer
