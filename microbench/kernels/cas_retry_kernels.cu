#include "cas_retry_kernels.cuh"

namespace atomq::microbench::kernels {

// The loop of a read-modify-write emulated with CAS (a product, a float max, an add on older
// GPUs): the lane carries the value it last saw, so each failed compare returns the word's
// current value and the retry needs no extra load. The update always changes the word, so
// every success makes the other lanes' next compare fail.
__global__ void cas_retry_kernel(CasRetryArgs args) {
  const unsigned long long thread = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  if (lane >= args.active_lanes) {
    args.attempts[thread] = 0u;
    return;
  }
  unsigned int* const word = args.words + (thread / 32u % static_cast<unsigned>(args.addresses)) * args.word_stride;
  unsigned int tries = 0u;
  unsigned int seen = __ldcg(word);
  for (int u = 0; u < args.updates; ++u) {
    unsigned int assumed;
    do {
      assumed = seen;
      seen = atomicCAS(word, assumed, assumed + 1u);
      ++tries;
    } while (seen != assumed);
    seen = assumed + 1u;
  }
  args.attempts[thread] = tries;
}

}  // namespace atomq::microbench::kernels
