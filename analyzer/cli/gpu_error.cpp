// The CLI's one message for a CUDA error met while looking for a GPU (CUDA builds only).
#include <fmt/format.h>

#include "atomq/cuda/check.hpp"
#include "commands.hpp"

namespace atomq::cli {

int report_gpu_error(const CudaError& e) {
  if (e.api() == "CUDA runtime" &&
      (e.code() == cudaErrorInsufficientDriver || e.code() == cudaErrorNoDevice ||
       e.code() == cudaErrorInitializationError)) {
    const char* why = e.code() == cudaErrorInsufficientDriver
                          ? "no NVIDIA driver found (libcuda.so.1 missing or too old)"
                      : e.code() == cudaErrorNoDevice ? "the driver sees no CUDA device"
                                                      : "the CUDA driver failed to initialize";
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: {} ({})\n", why, e.name());
    return kExitNoGpu;
  }
  fmt::print(stderr, "atomq: {}\n", e.what());
  return kExitError;
}

}  // namespace atomq::cli
