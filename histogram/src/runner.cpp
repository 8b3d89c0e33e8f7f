// HistogramRunner: the device it runs on, and single checked runs of a variant. Generation is
// in inputs.cpp, timing in timing.cpp, the launches in variant_launcher.cpp.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>

#include "atomq/cuda/check.hpp"
#include "runner_state.hpp"

namespace atomq::histogram {

namespace {

// A scatter-add variant leaves float sums of unit values in the counts buffer: exact counts
// (unsupported_reason keeps every sum <= 2^24).
void float_sums_to_counts(std::vector<std::uint32_t>& words) {
  for (std::uint32_t& w : words) {
    float sum = 0.0f;
    std::memcpy(&sum, &w, sizeof sum);
    w = static_cast<std::uint32_t>(std::lround(sum));
  }
}

}  // namespace

HistogramRunner::HistogramRunner(int device) : impl_(std::make_unique<Impl>()) {
  ATOMQ_CUDA(cudaSetDevice(device));
  ATOMQ_CUDA(cudaGetDeviceProperties(&impl_->props, device));
  ATOMQ_CUDA(cudaDriverGetVersion(&impl_->driver_version));
  ATOMQ_CUDA(cudaRuntimeGetVersion(&impl_->runtime_version));
  impl_->sink.reserve_for<unsigned int>(1 << 16);
  impl_->timer = std::make_unique<HeldStreamTimer>();
}

HistogramRunner::~HistogramRunner() = default;

HistRunResult HistogramRunner::run(HistVariant v) {
  if (!impl_->has_input) throw HistogramError("no input prepared");
  impl_->enqueue(v);
  ATOMQ_CUDA(cudaDeviceSynchronize());
  HistRunResult r;
  r.counts.resize(static_cast<std::size_t>(histogram_count(impl_->prepared.type)) *
                  impl_->prepared.bins);
  ATOMQ_CUDA(cudaMemcpy(r.counts.data(), impl_->counts.as<unsigned int>(),
                        r.counts.size() * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  if (policy_of(v).float_sums) float_sums_to_counts(r.counts);
  return r;
}

std::string HistogramRunner::device_name() const { return impl_->props.name; }
int HistogramRunner::driver_version() const { return impl_->driver_version; }
int HistogramRunner::runtime_version() const { return impl_->runtime_version; }

}  // namespace atomq::histogram
