#include <type_traits>

#include "l2_atomic_kernels.cuh"

namespace atomq::microbench::kernels {

namespace {

__host__ __device__ constexpr bool is_64_bit(GlobalAtomicOp op) {
  return op == GlobalAtomicOp::kRedAddU64 || op == GlobalAtomicOp::kAtomCasU64;
}

// One global atomic of kOp at `word`; returns what an ATOM op returned (0 for RED ops, whose
// result is dropped so that they compile to REDG). `j` varies the operand per unrolled slot.
template <GlobalAtomicOp kOp, typename Word>
__device__ __forceinline__ unsigned int issue(Word* word, unsigned int j) {
  if constexpr (kOp == GlobalAtomicOp::kRedAddU32) {
    atomicAdd(word, 1u);
  } else if constexpr (kOp == GlobalAtomicOp::kRedAddU64) {
    atomicAdd(word, 1ull);
  } else if constexpr (kOp == GlobalAtomicOp::kRedAddF32) {
    atomicAdd(word, 1.0f);
  } else if constexpr (kOp == GlobalAtomicOp::kRedMinU32) {
    atomicMin(word, 0x7fffffffu - j);
  } else if constexpr (kOp == GlobalAtomicOp::kRedMaxU32) {
    atomicMax(word, j);
  } else if constexpr (kOp == GlobalAtomicOp::kAtomAddU32) {
    return atomicAdd(word, 1u);
  } else if constexpr (kOp == GlobalAtomicOp::kAtomCasU32) {
    return atomicCAS(word, j, j + 1u);  // one attempt, no retry loop
  } else {
    return static_cast<unsigned int>(atomicCAS(word, static_cast<unsigned long long>(j),
                                               static_cast<unsigned long long>(j + 1u)));
  }
  return 0u;
}

}  // namespace

template <GlobalAtomicOp kOp>
__global__ void __launch_bounds__(1024) l2_atomic_kernel(L2AtomicArgs args) {
  using Word = std::conditional_t<is_64_bit(kOp), unsigned long long,
                                  std::conditional_t<kOp == GlobalAtomicOp::kRedAddF32, float,
                                                     unsigned int>>;
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x & 31);
  Word* const word = static_cast<Word*>(args.words) +
                     l2_word_index(args.spread, thread, thread >> 5, lane, sizeof(Word));
  unsigned int acc = 0u;
#pragma unroll 1
  for (int it = 0; it < args.iterations; ++it) {
#pragma unroll
    for (unsigned int j = 0; j < kL2Unroll; ++j) acc += issue<kOp>(word, j);
  }
  if (acc == args.sentinel) args.sink[blockIdx.x] = acc;  // never taken
}

#define ATOMQ_INSTANTIATE(OP) template __global__ void l2_atomic_kernel<OP>(L2AtomicArgs);
ATOMQ_INSTANTIATE(GlobalAtomicOp::kRedAddU32)
ATOMQ_INSTANTIATE(GlobalAtomicOp::kRedAddU64)
ATOMQ_INSTANTIATE(GlobalAtomicOp::kRedAddF32)
ATOMQ_INSTANTIATE(GlobalAtomicOp::kRedMinU32)
ATOMQ_INSTANTIATE(GlobalAtomicOp::kRedMaxU32)
ATOMQ_INSTANTIATE(GlobalAtomicOp::kAtomAddU32)
ATOMQ_INSTANTIATE(GlobalAtomicOp::kAtomCasU32)
ATOMQ_INSTANTIATE(GlobalAtomicOp::kAtomCasU64)
#undef ATOMQ_INSTANTIATE

const void* l2_atomic_kernel_handle(GlobalAtomicOp op) {
  switch (op) {
    case GlobalAtomicOp::kRedAddU32: return reinterpret_cast<const void*>(&l2_atomic_kernel<GlobalAtomicOp::kRedAddU32>);
    case GlobalAtomicOp::kRedAddU64: return reinterpret_cast<const void*>(&l2_atomic_kernel<GlobalAtomicOp::kRedAddU64>);
    case GlobalAtomicOp::kRedAddF32: return reinterpret_cast<const void*>(&l2_atomic_kernel<GlobalAtomicOp::kRedAddF32>);
    case GlobalAtomicOp::kRedMinU32: return reinterpret_cast<const void*>(&l2_atomic_kernel<GlobalAtomicOp::kRedMinU32>);
    case GlobalAtomicOp::kRedMaxU32: return reinterpret_cast<const void*>(&l2_atomic_kernel<GlobalAtomicOp::kRedMaxU32>);
    case GlobalAtomicOp::kAtomAddU32: return reinterpret_cast<const void*>(&l2_atomic_kernel<GlobalAtomicOp::kAtomAddU32>);
    case GlobalAtomicOp::kAtomCasU32: return reinterpret_cast<const void*>(&l2_atomic_kernel<GlobalAtomicOp::kAtomCasU32>);
    case GlobalAtomicOp::kAtomCasU64: return reinterpret_cast<const void*>(&l2_atomic_kernel<GlobalAtomicOp::kAtomCasU64>);
  }
  return nullptr;
}

int l2_word_bytes(GlobalAtomicOp op) { return is_64_bit(op) ? 8 : 4; }

}  // namespace atomq::microbench::kernels
