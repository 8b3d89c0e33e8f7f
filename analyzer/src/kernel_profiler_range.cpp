// The CUPTI range profiler of one context: enable, configure, start/stop around launches,
// decode the ranges and evaluate the metrics.
#include <spdlog/spdlog.h>

#include "atomq/cuda/check.hpp"
#include "cupti_session_setup.hpp"
#include "driver_api.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer::detail {

namespace {

model::DeviceInfo describe(uint32_t ordinal, const std::string& chip) {
  model::DeviceInfo d;
  d.chip = chip;
  d.ordinal = static_cast<int>(ordinal);
  const DriverApi& api = DriverApi::get();
  CUdevice dev = 0;
  if (api.device_get && api.device_get(&dev, static_cast<int>(ordinal)) == CUDA_SUCCESS) {
    CUuuid uuid{};
    if (api.device_get_uuid && api.device_get_uuid(&uuid, dev) == CUDA_SUCCESS) {
      unsigned char bytes[16];
      for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(uuid.bytes[i]);
      d.uuid = device_uuid_text(bytes);
    }
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

}  // namespace

std::shared_ptr<const MetricConfig> ContextProfiler::configure(CUcontext ctx, const std::vector<std::string>& metrics) {
  initialize_profiler_once();
  uint32_t device = 0;
  ATOMQ_CUPTI(cuptiGetDeviceId(ctx, &device));
  return std::make_shared<const MetricConfig>(cupti_chip_name(device), metrics, counter_availability(ctx));
}

ContextProfiler::ContextProfiler(CUcontext ctx, std::shared_ptr<const MetricConfig> config, ReplayMode mode,
                                 size_t max_ranges)
    : config_(std::move(config)), mode_(mode), max_ranges_(max_ranges) {
  initialize_profiler_once();
  ATOMQ_CUPTI(cuptiGetDeviceId(ctx, &device_));
  device_info_ = describe(device_, cupti_chip_name(device_));

  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = ctx;
  ATOMQ_CUPTI(cuptiRangeProfilerEnable(&enable));
  object_ = enable.pRangeProfilerObject;

  std::vector<const char*> names = c_strings(config_->metrics());
  CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = object_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = max_ranges_;
  size.maxNumRangeTreeNodes = max_ranges_;
  ATOMQ_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
  counter_data_.resize(size.counterDataSize);
  reset_counter_data();
  set_config();
}

void ContextProfiler::set_config() {
  CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = object_;
  set.configSize = config_->config_image().size();
  set.pConfig = config_->config_image().data();
  set.counterDataImageSize = counter_data_.size();
  set.pCounterDataImage = counter_data_.data();
  set.range = mode_ == ReplayMode::kUserOneRange ? CUPTI_UserRange : CUPTI_AutoRange;
  set.replayMode = mode_ == ReplayMode::kKernel ? CUPTI_KernelReplay : CUPTI_UserReplay;
  set.maxRangesPerPass = max_ranges_;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  ATOMQ_CUPTI(cuptiRangeProfilerSetConfig(&set));
}

ContextProfiler::~ContextProfiler() {
  try {
    stop();
  } catch (...) {
  }
  CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  disable.pRangeProfilerObject = object_;
  cuptiRangeProfilerDisable(&disable);
}

void ContextProfiler::start() {
  if (running_) return;
  CUpti_RangeProfiler_Start_Params p{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  ATOMQ_CUPTI(cuptiRangeProfilerStart(&p));
  running_ = true;
}

bool ContextProfiler::stop() {
  if (!running_) return true;
  CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  running_ = false;
  ATOMQ_CUPTI(cuptiRangeProfilerStop(&p));
  return mode_ == ReplayMode::kKernel || p.isAllPassSubmitted != 0;
}

void ContextProfiler::push_range(const char* name) {
  CUpti_RangeProfiler_PushRange_Params p{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  p.pRangeName = name;
  ATOMQ_CUPTI(cuptiRangeProfilerPushRange(&p));
}

void ContextProfiler::pop_range() {
  CUpti_RangeProfiler_PopRange_Params p{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  ATOMQ_CUPTI(cuptiRangeProfilerPopRange(&p));
}

std::vector<std::vector<double>> ContextProfiler::collect() {
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

void ContextProfiler::reset_counter_data() {
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params p{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  p.counterDataSize = counter_data_.size();
  p.pCounterData = counter_data_.data();
  ATOMQ_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&p));
}

}  // namespace atomq::analyzer::detail
