#include "atomq/analyzer/metric_config.hpp"

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "atomq/cuda/check.hpp"

namespace atomq::analyzer {

namespace {

// Owns a CUPTI host object: deinitialized however the scope is left.
struct HostObject {
  CUpti_Profiler_Host_Object* object = nullptr;
  HostObject() = default;
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;
  ~HostObject() {
    if (object == nullptr) return;
    CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = object;
    cuptiProfilerHostDeinitialize(&p);
  }
};

CUpti_Profiler_Host_Object* make_host(const std::string& chip, const std::vector<uint8_t>& availability) {
  CUpti_Profiler_Host_Initialize_Params init{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip.c_str();
  init.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  ATOMQ_CUPTI(cuptiProfilerHostInitialize(&init));
  return init.pHostObject;
}

// Calls the CUPTI host function `call` (named `name` in errors) on `host`: `params` holds its
// struct size and every other field.
template <typename Params>
void call_on_host(CUptiResult (*call)(Params*), const char* name, CUpti_Profiler_Host_Object* host,
                  Params& params) {
  params.pHostObject = host;
  atomq::detail::check(call(&params), name, __FILE__, __LINE__);
}

bool metric_exists(CUpti_Profiler_Host_Object* host, const std::string& name) {
  CUpti_Profiler_Host_GetMetricProperties_Params p{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
  p.pHostObject = host;
  p.pMetricName = name.c_str();
  return cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS;
}

}  // namespace

struct MetricConfig::Host : HostObject {};

std::vector<std::string> supported_chips() {
  CUpti_Profiler_Host_GetSupportedChips_Params p{CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE};
  ATOMQ_CUPTI(cuptiProfilerHostGetSupportedChips(&p));
  std::vector<std::string> chips;
  for (size_t i = 0; i < p.numChips; ++i) chips.emplace_back(p.ppChipNames[i]);
  return chips;
}

std::vector<MetricValidation> validate_metrics(const std::string& chip,
                                               const std::vector<std::string>& metrics) {
  std::vector<MetricValidation> result;
  HostObject host;
  host.object = make_host(chip, {});
  for (const std::string& name : metrics) result.push_back({name, metric_exists(host.object, name)});
  return result;
}

std::vector<const char*> c_strings(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(n.c_str());
  return out;
}

MetricConfig::MetricConfig(const std::string& chip, std::vector<std::string> metrics,
                           const std::vector<uint8_t>& counter_availability)
    : chip_(chip), metrics_(std::move(metrics)), host_(std::make_unique<Host>()) {
  host_->object = make_host(chip_, counter_availability);
  std::string unknown;
  for (const std::string& name : metrics_)
    if (!metric_exists(host_->object, name)) unknown += (unknown.empty() ? "" : ", ") + name;
  if (!unknown.empty())
    throw std::invalid_argument("metrics not available on chip " + chip_ + ": " + unknown);

  // One call with every metric: one call per metric costs one pass each.
  std::vector<const char*> names = c_strings(metrics_);
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  call_on_host(cuptiProfilerHostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics", host_->object, add);

  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  call_on_host(cuptiProfilerHostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize", host_->object, size);
  config_image_.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params image{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  image.configImageSize = config_image_.size();
  image.pConfigImage = config_image_.data();
  call_on_host(cuptiProfilerHostGetConfigImage, "cuptiProfilerHostGetConfigImage", host_->object, image);

  CUpti_Profiler_Host_GetNumOfPasses_Params passes{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.configImageSize = config_image_.size();
  passes.pConfigImage = config_image_.data();
  ATOMQ_CUPTI(cuptiProfilerHostGetNumOfPasses(&passes));
  passes_ = passes.numOfPasses;
  spdlog::info("{} metrics on {}: {} replay pass(es)", metrics_.size(), chip_, passes_);
}

MetricConfig::~MetricConfig() = default;

std::vector<double> MetricConfig::evaluate(const std::vector<uint8_t>& counter_data,
                                           size_t range_index) const {
  std::vector<const char*> names = c_strings(metrics_);
  std::vector<double> values(metrics_.size(), 0.0);
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range_index;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  call_on_host(cuptiProfilerHostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues", host_->object, p);
  return values;
}

}  // namespace atomq::analyzer
