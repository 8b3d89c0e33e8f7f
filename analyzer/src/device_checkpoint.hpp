// The device memory of one context saved once and restored before each repeat of a user-replay
// pass, through CUPTI's checkpoint library (libcheckpoint.so), loaded at run time: atomq
// starts without it and then replays nothing by itself.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

namespace atomq::analyzer::detail {

class DeviceCheckpoint {
 public:
  // Why the checkpoint library cannot be used ("" when it can).
  static std::string unavailable();

  explicit DeviceCheckpoint(CUcontext ctx);  // saves; throws CudaError
  ~DeviceCheckpoint();                       // frees the saved copy
  DeviceCheckpoint(const DeviceCheckpoint&) = delete;
  DeviceCheckpoint& operator=(const DeviceCheckpoint&) = delete;

  void restore();  // throws CudaError

 private:
  struct Handle;
  std::unique_ptr<Handle> handle_;
};

}  // namespace atomq::analyzer::detail
