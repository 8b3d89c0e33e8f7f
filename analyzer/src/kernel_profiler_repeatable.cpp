// Profiling work the caller can repeat: user replay, the work itself run once per pass.
#include <algorithm>
#include <stdexcept>

#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/analyzer/metric_list.hpp"
#include "atomq/cuda/check.hpp"
#include "driver_api.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer {

std::vector<model::KernelProfile> profile_repeatable(const std::function<void()>& work, size_t launches,
                                                     const ProfilerOptions& options) {
  const DriverApi& api = DriverApi::get();
  CUcontext ctx = nullptr;
  if (api.ctx_get_current == nullptr || api.ctx_get_current(&ctx) != CUDA_SUCCESS || ctx == nullptr)
    throw std::runtime_error("profiling repeatable work needs a current CUDA context");
  if (api.ctx_synchronize == nullptr) throw std::runtime_error("the CUDA driver lacks cuCtxSynchronize");
  const std::vector<std::string> metrics = options.metrics.empty() ? collector_metric_names(options.sector_counters) : options.metrics;
  auto config = detail::ContextProfiler::configure(ctx, metrics);
  const int most = 4 * static_cast<int>(config->passes()) + 4;
  detail::ContextProfiler profiler(ctx, config, detail::ReplayMode::kUserPerLaunch, std::max<size_t>(launches, 1));
  bool done = false;
  for (int pass = 0; !done; ++pass) {
    if (pass >= most)
      throw std::runtime_error("the range profiler asked for more passes than the " +
                               std::to_string(config->passes()) + " its configuration has");
    profiler.start();
    work();
    ATOMQ_CU(api.ctx_synchronize());
    done = profiler.stop();
  }
  const std::vector<std::vector<double>> ranges = profiler.collect();
  if (ranges.size() != launches)
    throw std::runtime_error("the range profiler gave " + std::to_string(ranges.size()) + " ranges for " +
                             std::to_string(launches) + " launches");
  std::vector<model::KernelProfile> out;
  for (const auto& values : ranges) {
    model::KernelProfile p;
    p.device = profiler.device_info();
    p.source = options.source;
    for (size_t i = 0; i < metrics.size() && i < values.size(); ++i) p.counters[metrics[i]] = values[i];
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace atomq::analyzer
