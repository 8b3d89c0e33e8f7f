// A graph launch repeated once per profiling pass on the device memory saved before it, one
// user range around it: CUPTI's kernel replay gives a graph launch one range, that of its first
// kernel node, and a range per node in user replay (auto range) fails at the first stop
// (CUPTI_ERROR_UNKNOWN, measured on the H200 with CUPTI 13.0).
#include <stdexcept>

#include "atomq/cuda/check.hpp"
#include "device_checkpoint.hpp"
#include "driver_api.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer::detail {

namespace {

thread_local bool t_replaying = false;
constexpr const char* kRangeName = "graph launch";

void synchronize() {
  const auto sync = DriverApi::get().ctx_synchronize;
  if (sync == nullptr) throw std::runtime_error("the CUDA driver lacks cuCtxSynchronize");
  ATOMQ_CU(sync());
}

}  // namespace

bool GraphReplay::replaying_on_this_thread() { return t_replaying; }

GraphReplay::GraphReplay(CUcontext ctx, std::shared_ptr<const MetricConfig> config, CUgraphExec exec,
                         CUstream stream)
    : exec_(exec), stream_(stream) {
  if (DriverApi::get().graph_launch == nullptr) throw std::runtime_error("the CUDA driver lacks cuGraphLaunch");
  synchronize();  // the saved memory is what the graph starts from
  const bool more_passes = config->passes() > 1;
  profiler_ = std::make_unique<ContextProfiler>(ctx, std::move(config), ReplayMode::kUserOneRange, 1);
  if (more_passes) checkpoint_ = std::make_unique<DeviceCheckpoint>(ctx);
  profiler_->start();
  profiler_->push_range(kRangeName);
}

GraphReplay::~GraphReplay() = default;

void GraphReplay::relaunch() {
  t_replaying = true;
  const CUresult r = DriverApi::get().graph_launch(exec_, stream_);
  t_replaying = false;
  ATOMQ_CU(r);
}

void GraphReplay::finish() {
  synchronize();
  profiler_->pop_range();
  bool done = profiler_->stop();
  // A bound well above any pass count CUPTI reports, against a profiler that never says done.
  const int most = 4 * static_cast<int>(profiler_->config().passes()) + 4;
  while (!done) {
    if (!checkpoint_ || passes_ >= most)
      throw std::runtime_error("the range profiler asked for more passes than the " +
                               std::to_string(profiler_->config().passes()) + " its configuration has");
    checkpoint_->restore();
    try {
      profiler_->start();
      profiler_->push_range(kRangeName);
      relaunch();
      synchronize();
      profiler_->pop_range();
    } catch (...) {
      // The memory is as before the graph: run it once more, unprofiled, for the program.
      try {
        profiler_->stop();
      } catch (...) {
      }
      relaunch();
      synchronize();
      throw;
    }
    ++passes_;
    done = profiler_->stop();
  }
}

}  // namespace atomq::analyzer::detail
