// The one error header for CUDA runtime, driver and CUPTI calls.
//
// ATOMQ_CUDA(call), ATOMQ_CU(call) and ATOMQ_CUPTI(call) throw atomq::CudaError carrying the
// file, the line, the call's text and the error's name. The driver overload never links
// libcuda: it only formats the numeric code, because atomq must start without a driver.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_result.h>

#include <stdexcept>
#include <cstring>
#include <string>

namespace atomq {

class CudaError : public std::runtime_error {
 public:
  CudaError(std::string api, int code, std::string name, const std::string& message)
      : std::runtime_error(message), api_(std::move(api)), code_(code), name_(std::move(name)) {}
  const std::string& api() const { return api_; }
  int code() const { return code_; }
  const std::string& name() const { return name_; }

 private:
  std::string api_;
  int code_;
  std::string name_;
};

namespace detail {

[[noreturn]] inline void throw_error(const char* api, int code, const std::string& name,
                                     const std::string& detail_text, const char* call,
                                     const char* file, int line) {
  // The file's name only: a message for users carries no path of the machine atomq was built on.
  const char* slash = std::strrchr(file, '/');
  std::string msg = std::string(slash ? slash + 1 : file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                    name + " (" + api + " error " + std::to_string(code) + ")";
  if (!detail_text.empty()) msg += ": " + detail_text;
  throw CudaError(api, code, name, msg);
}

inline void check(cudaError_t rc, const char* call, const char* file, int line) {
  if (rc == cudaSuccess) return;
  throw_error("CUDA runtime", static_cast<int>(rc), cudaGetErrorName(rc), cudaGetErrorString(rc),
              call, file, line);
}

inline void check(CUresult rc, const char* call, const char* file, int line) {
  if (rc == CUDA_SUCCESS) return;
  throw_error("CUDA driver", static_cast<int>(rc), "CUresult " + std::to_string(rc), "", call,
              file, line);
}

inline void check(CUptiResult rc, const char* call, const char* file, int line) {
  if (rc == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  if (cuptiGetResultString(rc, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown";
  throw_error("CUPTI", static_cast<int>(rc), text, "", call, file, line);
}

}  // namespace detail
}  // namespace atomq

#define ATOMQ_CUDA(call) ::atomq::detail::check((call), #call, __FILE__, __LINE__)
#define ATOMQ_CU(call) ::atomq::detail::check((call), #call, __FILE__, __LINE__)
#define ATOMQ_CUPTI(call) ::atomq::detail::check((call), #call, __FILE__, __LINE__)
// After a kernel launch: launch errors now, execution errors at the next synchronizing call.
#define ATOMQ_CUDA_LAUNCH() ATOMQ_CUDA(cudaGetLastError())
