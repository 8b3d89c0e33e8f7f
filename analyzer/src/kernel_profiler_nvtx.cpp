// The NVTX push/pop ranges open on each thread, from CUPTI's NVTX callbacks (the program's NVTX
// calls reach CUPTI when NVTX_INJECTION64_PATH names libcupti: `atomq analyze` sets it for the
// program). Ranges of named domains are left out: the default domain's stack is what ncu's
// --nvtx-include "A/B/" and PyTorch's emit_nvtx() use.
#include <cupti.h>
#include <generated_nvtx_meta.h>

#include <string>
#include <vector>

#include "atomq/cuda/check.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer::detail {

namespace {

thread_local std::vector<std::string> t_open_ranges;

std::string message_of(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return "(no message)";
  if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
  return "(message not in ASCII)";
}

}  // namespace

const std::vector<std::string>& open_nvtx_ranges() { return t_open_ranges; }

void on_nvtx(CUpti_CallbackId id, const void* raw) {
  const auto* data = static_cast<const CUpti_NvtxData*>(raw);
  if (data == nullptr || data->functionParams == nullptr) return;
  switch (id) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const char* m = static_cast<const nvtxRangePushA_params*>(data->functionParams)->message;
      t_open_ranges.emplace_back(m ? m : "");
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      t_open_ranges.push_back(message_of(static_cast<const nvtxRangePushEx_params*>(data->functionParams)->eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
      if (!t_open_ranges.empty()) t_open_ranges.pop_back();
      break;
    default:
      break;
  }
}

void enable_nvtx_callbacks(CUpti_SubscriberHandle subscriber) {
  for (CUpti_CallbackId id : {CUPTI_CBID_NVTX_nvtxRangePushA, CUPTI_CBID_NVTX_nvtxRangePushEx,
                              CUPTI_CBID_NVTX_nvtxRangePop})
    ATOMQ_CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_NVTX, id));
}

}  // namespace atomq::analyzer::detail
