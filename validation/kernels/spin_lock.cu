// A two-field counter (sum, count) guarded by a global CAS spin lock. One lane per warp takes
// the lock (lanes of one warp spinning on one lock can starve each other); the warp's values are
// reduced first. Spinning warps hold issue slots and hammer one L2 address.
#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

namespace {

struct WarpPart {
  unsigned long long sum;
  std::uint32_t count;
};

__device__ __forceinline__ WarpPart warp_part(const LockArgs& a, unsigned long long i, unsigned int active) {
  unsigned long long v = i < a.n ? a.values[i] : 0ull;
  std::uint32_t c = i < a.n ? 1u : 0u;
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(active, v, offset);
    c += __shfl_down_sync(active, c, offset);
  }
  return {v, c};
}

__device__ __forceinline__ void locked_add(int* lock, unsigned long long* sum, std::uint32_t* count,
                                           const WarpPart& part) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  volatile unsigned long long* vs = sum;
  volatile std::uint32_t* vc = count;
  *vs = *vs + part.sum;
  *vc = *vc + part.count;
  __threadfence();
  atomicExch(lock, 0);
}

template <typename Update>
__device__ __forceinline__ void for_each_warp_part(const LockArgs& a, Update&& update) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const WarpPart part = warp_part(a, r * stride + global_thread(), 0xFFFFFFFFu);
    if ((threadIdx.x & 31u) == 0u && part.count != 0u) update(part);
  }
}

}  // namespace

__global__ void lock_spin_kernel(LockArgs a) {
  for_each_warp_part(a, [&](const WarpPart& p) { locked_add(&a.locks[0], &a.sum[0], &a.count[0], p); });
}

__global__ void lock_free_kernel(LockArgs a) {
  for_each_warp_part(a, [&](const WarpPart& p) {
    atomicAdd(&a.sum[0], p.sum);
    atomicAdd(&a.count[0], p.count);
  });
}

__global__ void lock_per_warp_kernel(LockArgs a) {
  const unsigned long long warp = global_thread() / 32u;
  for_each_warp_part(a, [&](const WarpPart& p) { locked_add(&a.locks[warp], &a.sum[warp], &a.count[warp], p); });
}

const void* lock_spin_handle() { return handle(&lock_spin_kernel); }
const void* lock_free_handle() { return handle(&lock_free_kernel); }
const void* lock_per_warp_handle() { return handle(&lock_per_warp_kernel); }

}  // namespace atomq::validation::kernels
