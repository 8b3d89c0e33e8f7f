// What a driver-API launch callback tells about a kernel launch, completed after the launch
// with the function's attributes; a kernel's name as people read it.
#include <cxxabi.h>

#include <cstdlib>
#include <stdexcept>

#include "atomq/analyzer/kernel_profiler.hpp"
#include "driver_api.hpp"
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

}  // namespace atomq::analyzer

namespace atomq::analyzer::detail {

namespace {

// cuLaunchKernel and cuLaunchCooperativeKernel take the same launch fields.
template <typename Params>
void copy_launch_params(const Params& a, PendingLaunch& p) {
  p.function = a.f;
  p.stream = a.hStream;
  p.launch.grid = {a.gridDimX, a.gridDimY, a.gridDimZ};
  p.launch.block = {static_cast<int>(a.blockDimX), static_cast<int>(a.blockDimY), static_cast<int>(a.blockDimZ)};
  p.launch.shared_mem_bytes_per_block = a.sharedMemBytes;
}

void copy_launch_config(const cuLaunchKernelEx_params& a, PendingLaunch& p) {
  p.function = a.f;
  if (a.config == nullptr) return;
  p.stream = a.config->hStream;
  p.launch.grid = {a.config->gridDimX, a.config->gridDimY, a.config->gridDimZ};
  p.launch.block = {static_cast<int>(a.config->blockDimX), static_cast<int>(a.config->blockDimY),
                    static_cast<int>(a.config->blockDimZ)};
  p.launch.shared_mem_bytes_per_block = a.config->sharedMemBytes;
}

}  // namespace

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

// A launch into a capturing stream only records a graph node: nothing runs, and the sync
// that decoding needs would invalidate the capture.
bool is_captured(CUstream stream) {
  const DriverApi& api = DriverApi::get();
  if (api.stream_is_capturing == nullptr) return false;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (api.stream_is_capturing(stream, &status) != CUDA_SUCCESS) return false;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

PendingLaunch launch_of(CUpti_CallbackId id, const CUpti_CallbackData* data) {
  PendingLaunch p;
  p.name = data->symbolName ? data->symbolName : kUnknownKernel;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      copy_launch_params(*static_cast<const cuLaunchKernel_params*>(data->functionParams), p);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      copy_launch_params(*static_cast<const cuLaunchCooperativeKernel_params*>(data->functionParams), p);
      break;
    default:  // cuLaunchKernelEx(_ptsz)
      copy_launch_config(*static_cast<const cuLaunchKernelEx_params*>(data->functionParams), p);
      break;
  }
  return p;
}

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

std::string launch_detail(const PendingLaunch& launch) {
  if (!launch.graph) return "launch " + std::to_string(launch.index) + " (" + launch.name + ")";
  return "graph launch " + std::to_string(launch.graph->graph_launch) + ", kernel node " +
         std::to_string(launch.graph->node + 1) + " of " + std::to_string(launch.graph->nodes) + " (" +
         launch.name + ")";
}

}  // namespace atomq::analyzer::detail

namespace atomq::analyzer {

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
