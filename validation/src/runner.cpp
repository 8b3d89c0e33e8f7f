// CaseRunner: the device chosen, the input generated, each variant run, checked and timed.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "atomq/common/statistics.hpp"
#include "atomq/cuda/held_stream_timer.hpp"
#include "workloads.hpp"

namespace atomq::validation {

void launch_persistent(const void* kernel, int threads, std::size_t shared_bytes, void* args) {
  int device = 0, sms = 0, per_sm = 0;
  ATOMQ_CUDA(cudaGetDevice(&device));
  ATOMQ_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (shared_bytes > 48 * 1024)
    ATOMQ_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared_bytes)));
  ATOMQ_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  void* params[] = {args};
  ATOMQ_CUDA(cudaLaunchKernel(kernel, dim3(std::max(1, per_sm) * sms), dim3(threads), params, shared_bytes, 0));
  ATOMQ_CUDA_LAUNCH();
}

VariantCheck compare_counts(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& expected) {
  std::size_t differ = 0, first = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (got[i] != expected[i] && differ++ == 0) first = i;
  if (differ == 0) return {true, true, fmt::format("all {} counters equal the CPU reference", expected.size())};
  return {true, false,
          fmt::format("{} of {} counters differ; first at {}: got {}, expected {}", differ, expected.size(), first,
                      got[first], expected[first])};
}

VariantCheck compare_float_sums(const std::vector<float>& got, const std::vector<double>& expected, const char* what) {
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (std::abs(got[i] - expected[i]) > 1e-4 * std::max(1.0, std::abs(expected[i])))
      return {true, false, fmt::format("{} {}: {} vs {}", what, i, got[i], expected[i])};
  return {true, true, fmt::format("all {} {}s within 1e-4 relative of the CPU's double sums", expected.size(), what)};
}

const KernelChoice& choose(const KernelChoice* table, std::size_t size, const std::string& variant) {
  for (std::size_t i = 0; i < size; ++i)
    if (variant == table[i].variant) return table[i];
  throw std::invalid_argument("unknown variant '" + variant + "'");
}

CaseRunner::CaseRunner(const CaseSpec& spec, int device) : spec_(spec) {
  ATOMQ_CUDA(cudaSetDevice(device));
  spdlog::info("validate: generating the input of {}", spec.name);
  workload_ = make_workload(spec.name);
  timer_ = std::make_unique<HeldStreamTimer>();
}

CaseRunner::~CaseRunner() = default;

void CaseRunner::run(const std::string& variant) {
  if (!spec_.find(variant)) throw std::invalid_argument("case " + spec_.name + " has no variant '" + variant + "'");
  workload_->reset();
  workload_->launch(variant);
  ATOMQ_CUDA(cudaDeviceSynchronize());
}

VariantCheck CaseRunner::check(const std::string& variant) {
  run(variant);
  if (spec_.find(variant)->role == VariantRole::kAblation) return {false, false, "ablation: result not checked"};
  return workload_->check();
}

VariantTiming CaseRunner::time(const std::string& variant, int runs) {
  std::vector<double> ms;
  run(variant);  // warm-up
  for (int r = 0; r < runs; ++r) {
    workload_->reset();
    ATOMQ_CUDA(cudaDeviceSynchronize());
    ms.push_back(timer_->time_ms([&] { workload_->launch(variant); }));
  }
  VariantTiming t;
  t.runs = runs;
  t.stream_held = !timer_->hold_timed_out();
  if (!ms.empty()) {
    const SampleSummary s = summarize(ms);
    t.median_ms = s.median;
    t.min_ms = s.min;
    t.max_ms = s.max;
  }
  return t;
}

double CaseRunner::useful_updates() const { return workload_->useful_updates(); }

}  // namespace atomq::validation
