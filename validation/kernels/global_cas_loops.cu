// Keyed reductions whose update has no native atomic, written as a global CAS loop (a product,
// a float max, a float add as older code writes it): the baseline with one global CAS loop per
// value, the combining fix (equal keys merged in the warp, then per block in shared memory, one
// global CAS loop per key and block), the copies fix (the words spread over replicas) and the
// ablation (the same reads, no atomic).
#include <cmath>

#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

namespace {

struct ProductU32 {
  static __device__ std::uint32_t identity() { return 1u; }
  static __device__ std::uint32_t apply(std::uint32_t a, std::uint32_t b) { return a * b; }
};
struct MaxF32 {
  static __device__ std::uint32_t identity() { return __float_as_uint(-INFINITY); }
  static __device__ std::uint32_t apply(std::uint32_t a, std::uint32_t b) {
    return __float_as_uint(fmaxf(__uint_as_float(a), __uint_as_float(b)));
  }
};
struct AddF32 {
  static __device__ std::uint32_t identity() { return 0u; }
  static __device__ std::uint32_t apply(std::uint32_t a, std::uint32_t b) {
    return __float_as_uint(__uint_as_float(a) + __uint_as_float(b));
  }
};

// The loop as library code writes it: read the word, CAS in the combined value, retry with the
// value the failed CAS returned. Works on global and shared words alike.
template <typename Op>
__device__ __forceinline__ void cas_loop(std::uint32_t* word, std::uint32_t v) {
  std::uint32_t old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, Op::apply(assumed, v));
  } while (old != assumed);
}

template <typename Op>
__global__ void cas_loop_global_kernel(CasLoopArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) cas_loop<Op>(&a.out[a.keys[i]], a.values[i]);
}

// The hot words spread over `copies` replicas, each its own lines (and slices): a block updates
// copy blockIdx % copies, so a word's contending lanes split over the copies. The last block to
// finish folds the copies into out.
template <typename Op>
__global__ void cas_loop_copies_kernel(CasLoopArgs a) {
  std::uint32_t* mine = a.replicas + static_cast<unsigned long long>(blockIdx.x % a.copies) * a.keys_count;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) cas_loop<Op>(&mine[a.keys[i]], a.values[i]);
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(a.blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (std::uint32_t k = threadIdx.x; k < a.keys_count; k += blockDim.x) {
    std::uint32_t acc = Op::identity();
    for (std::uint32_t c = 0; c < a.copies; ++c) acc = Op::apply(acc, __ldcg(&a.replicas[c * a.keys_count + k]));
    a.out[k] = acc;
  }
}

// Equal keys of the warp combined by every lane reading all 32 lanes (the same shuffles on every
// lane, so any key distribution works); each key's lowest lane takes the result.
template <typename Op>
__device__ __forceinline__ std::uint32_t combine_in_warp(unsigned int active, std::uint32_t key, std::uint32_t v) {
  std::uint32_t acc = Op::identity();
  for (int j = 0; j < 32; ++j) {
    const std::uint32_t vj = __shfl_sync(active, v, j), kj = __shfl_sync(active, key, j);
    if (((active >> j) & 1u) && kj == key) acc = Op::apply(acc, vj);
  }
  return acc;
}

template <typename Op>
__global__ void cas_loop_combined_kernel(CasLoopArgs a) {
  extern __shared__ std::uint32_t part[];
  for (std::uint32_t k = threadIdx.x; k < a.keys_count; k += blockDim.x) part[k] = Op::identity();
  __syncthreads();
  const unsigned long long stride = global_threads(), rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.n;
    const unsigned int active = __ballot_sync(0xFFFFFFFFu, valid);
    if (!valid) continue;
    const std::uint32_t key = a.keys[i];
    const std::uint32_t acc = combine_in_warp<Op>(active, key, a.values[i]);
    const unsigned int peers = __match_any_sync(active, key);
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1) cas_loop<Op>(&part[key], acc);
  }
  __syncthreads();
  for (std::uint32_t k = threadIdx.x; k < a.keys_count; k += blockDim.x)
    if (part[k] != Op::identity()) cas_loop<Op>(&a.out[k], part[k]);
}

__global__ void cas_loop_no_atomics_kernel(CasLoopArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    acc += a.keys[i] * 2654435761u ^ a.values[i];
  keep_alive(acc, a.sink);
}

}  // namespace

// The kernel family `pick` names, instantiated for `op`'s update.
template <typename Pick>
const void* for_op(CasLoopOp op, Pick pick) {
  switch (op) {
    case CasLoopOp::kProductU32: return pick(ProductU32{});
    case CasLoopOp::kMaxF32: return pick(MaxF32{});
    case CasLoopOp::kAddF32: return pick(AddF32{});
  }
  return nullptr;
}

const void* cas_loop_global_handle(CasLoopOp op) {
  return for_op(op, [](auto o) { return handle(&cas_loop_global_kernel<decltype(o)>); });
}
const void* cas_loop_copies_handle(CasLoopOp op) {
  return for_op(op, [](auto o) { return handle(&cas_loop_copies_kernel<decltype(o)>); });
}
const void* cas_loop_combined_handle(CasLoopOp op) {
  return for_op(op, [](auto o) { return handle(&cas_loop_combined_kernel<decltype(o)>); });
}
const void* cas_loop_no_atomics_handle() { return handle(&cas_loop_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
