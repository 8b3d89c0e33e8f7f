// Timing of the histogram runs: CUDA events around a held stream, medians of repeated runs,
// and the read-bandwidth probe the runs are measured against.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "atomq/common/statistics.hpp"
#include "atomq/cuda/check.hpp"
#include "hist_kernels.cuh"
#include "runner_state.hpp"

namespace atomq::histogram {

namespace {

HistTiming timing_of(const std::vector<double>& ms) {
  HistTiming out;
  out.runs = static_cast<int>(ms.size());
  if (ms.empty()) return out;
  const SampleSummary s = summarize(ms);
  out.median_ms = s.median;
  out.min_ms = s.min;
  out.max_ms = s.max;
  return out;
}

}  // namespace

void HistogramRunner::Impl::enqueue_input_read() {
  const auto base = reinterpret_cast<std::uintptr_t>(samples());
  const std::uintptr_t aligned = (base + 15) & ~std::uintptr_t{15};
  const std::size_t skipped = aligned - base;
  const std::size_t bytes = input_bytes();
  if (bytes <= skipped + 16) return;
  launch_read_probe(reinterpret_cast<const void*>(aligned), (bytes - skipped) / 16);
}

void HistogramRunner::Impl::launch_read_probe(const void* data, unsigned long long vectors) {
  constexpr int kThreads = policy::ReadProbe::kThreads;
  unsigned int sentinel = 0x9E3779B9u;
  unsigned int* sink_ptr = sink.as<unsigned int>();
  void* params[] = {&data, &vectors, &sentinel, &sink_ptr};
  const void* kernel = kernels::hist_read_bandwidth_handle();
  int per_sm = 0;
  ATOMQ_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, 0));
  const int blocks = std::max(1, per_sm) * props.multiProcessorCount;
  ATOMQ_CUDA(cudaLaunchKernel(kernel, dim3(blocks), dim3(kThreads), params, 0, 0));
  ATOMQ_CUDA_LAUNCH();
}

// Every run timed on the held stream (held_stream_timer.hpp), the read probe and every variant
// alike: the time is the device's alone, which matters most for sequences of several launches.
double HistogramRunner::Impl::time_once(const std::function<void()>& enqueue_work) {
  const double ms = timer->time_ms(enqueue_work);
  if (timer->hold_timed_out() && !warned_hold_timeout) {
    warned_hold_timeout = true;
    spdlog::warn("the stream hold timed out before the launches were queued: this timing includes host launch time");
  }
  return ms;
}

PairedTiming HistogramRunner::Impl::time_runs(HistVariant v, int runs, bool with_input_read) {
  if (!has_input) throw HistogramError("no input prepared");
  enqueue(v);  // warm-up: also grows any scratch buffer outside the timed runs
  if (with_input_read) enqueue_input_read();
  ATOMQ_CUDA(cudaDeviceSynchronize());
  std::vector<double> variant_ms, read_ms;
  for (int i = 0; i < runs; ++i) {
    if (with_input_read) read_ms.push_back(time_once([&] { enqueue_input_read(); }));
    variant_ms.push_back(time_once([&] { enqueue(v); }));
  }
  return {timing_of(variant_ms), timing_of(read_ms)};
}

HistTiming HistogramRunner::time(HistVariant v, int runs) {
  return impl_->time_runs(v, runs, false).variant;
}

PairedTiming HistogramRunner::time_with_input_read(HistVariant v, int runs) {
  return impl_->time_runs(v, runs, true);
}

double HistogramRunner::measure_read_bandwidth_gbs(std::size_t bytes, int runs) {
  Impl& m = *impl_;
  const std::size_t vectors = bytes / 16;
  DeviceBuffer buffer(vectors * 16);
  ATOMQ_CUDA(cudaMemset(buffer.as<void>(), 1, vectors * 16));
  auto read = [&] { m.launch_read_probe(buffer.as<void>(), vectors); };
  read();  // warm-up, outside the hold: a first launch may load the kernel's module
  ATOMQ_CUDA(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) ms.push_back(m.time_once(read));
  return static_cast<double>(vectors * 16) / (median(ms) * 1e-3) / 1e9;
}

}  // namespace atomq::histogram
