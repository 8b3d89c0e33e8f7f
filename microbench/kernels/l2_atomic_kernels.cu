#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <array>
#include <utility>

#include "l2_atomic_kernels.cuh"

namespace atomq::microbench::kernels {

namespace {

// The word type each op updates; its size is the op's traits().word_bytes (checked in
// kernel_handles).
template <GlobalAtomicOp kOp>
struct WordOf { using type = unsigned int; };
template <> struct WordOf<GlobalAtomicOp::kRedAddU64> { using type = unsigned long long; };
template <> struct WordOf<GlobalAtomicOp::kAtomCasU64> { using type = unsigned long long; };
template <> struct WordOf<GlobalAtomicOp::kAtomAddU64> { using type = unsigned long long; };
template <> struct WordOf<GlobalAtomicOp::kAtomExchU64> { using type = unsigned long long; };
template <> struct WordOf<GlobalAtomicOp::kRedAddF32> { using type = float; };
template <> struct WordOf<GlobalAtomicOp::kAtomAddF32> { using type = float; };
template <> struct WordOf<GlobalAtomicOp::kAtomMaxS32> { using type = int; };
template <> struct WordOf<GlobalAtomicOp::kRedAddF64> { using type = double; };
template <> struct WordOf<GlobalAtomicOp::kAtomAddF64> { using type = double; };
template <> struct WordOf<GlobalAtomicOp::kAtomAddF16x2> { using type = __half2; };
template <> struct WordOf<GlobalAtomicOp::kAtomAddBF16x2> { using type = __nv_bfloat162; };
template <> struct WordOf<GlobalAtomicOp::kRedAddF32x2> { using type = float2; };
template <> struct WordOf<GlobalAtomicOp::kRedAddF32x4> { using type = float4; };

// One global atomic of kOp at `word`; returns what an ATOM op returned (0 for RED ops, whose
// result is dropped so that they compile to REDG). `j` varies the operand per unrolled slot.
// The half-pair adds compile to ATOM whether or not the result is used.
template <GlobalAtomicOp kOp, typename Word>
__device__ __forceinline__ unsigned int issue(Word* word, unsigned int j) {
  using Op = GlobalAtomicOp;
  using U64 = unsigned long long;
  if constexpr (kOp == Op::kRedAddU32) {
    atomicAdd(word, 1u);
  } else if constexpr (kOp == Op::kRedAddU64) {
    atomicAdd(word, 1ull);
  } else if constexpr (kOp == Op::kRedAddF32) {
    atomicAdd(word, 1.0f);
  } else if constexpr (kOp == Op::kRedMinU32) {
    atomicMin(word, 0x7fffffffu - j);
  } else if constexpr (kOp == Op::kRedMaxU32) {
    atomicMax(word, j);
  } else if constexpr (kOp == Op::kAtomAddU32) {
    return atomicAdd(word, 1u);
  } else if constexpr (kOp == Op::kAtomCasU32) {
    return atomicCAS(word, j, j + 1u);  // one attempt, no retry loop
  } else if constexpr (kOp == Op::kAtomCasU64) {
    return static_cast<unsigned int>(atomicCAS(word, static_cast<U64>(j), static_cast<U64>(j + 1u)));
  } else if constexpr (kOp == Op::kRedAddF64) {
    atomicAdd(word, 1.0);
  } else if constexpr (kOp == Op::kAtomAddF64) {
    return static_cast<unsigned int>(atomicAdd(word, 1.0));
  } else if constexpr (kOp == Op::kAtomAddF16x2) {
    atomicAdd(word, __floats2half2_rn(1.0f, 1.0f));
  } else if constexpr (kOp == Op::kAtomAddBF16x2) {
    atomicAdd(word, __floats2bfloat162_rn(1.0f, 1.0f));
  } else if constexpr (kOp == Op::kAtomAddU64) {
    return static_cast<unsigned int>(atomicAdd(word, 1ull));
  } else if constexpr (kOp == Op::kAtomExchU32) {
    return atomicExch(word, j);
  } else if constexpr (kOp == Op::kAtomExchU64) {
    return static_cast<unsigned int>(atomicExch(word, static_cast<U64>(j)));
  } else if constexpr (kOp == Op::kAtomAddF32) {
    return __float_as_uint(atomicAdd(word, 1.0f));
  } else if constexpr (kOp == Op::kAtomMaxS32) {
    return static_cast<unsigned int>(atomicMax(word, static_cast<int>(j)));
  } else if constexpr (kOp == Op::kAtomMinU32) {
    return atomicMin(word, 0x7fffffffu - j);
  } else if constexpr (kOp == Op::kRedAddF32x2) {
    atomicAdd(word, make_float2(1.0f, 1.0f));
  } else if constexpr (kOp == Op::kRedAddF32x4) {
    atomicAdd(word, make_float4(1.0f, 1.0f, 1.0f, 1.0f));
  } else {
    static_assert(kOp == Op::kRedOrU32);
    atomicOr(word, 1u << j);
  }
  return 0u;
}

}  // namespace

template <GlobalAtomicOp kOp>
__global__ void __launch_bounds__(1024) l2_atomic_kernel(L2AtomicArgs args) {
  using Word = typename WordOf<kOp>::type;
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (lane >= args.active_lanes) return;
  const long long index =
      args.hot_addresses > 0
          ? l2_hot_word_index(thread >> 5, lane, args.active_lanes, args.hot_addresses, args.stride_words,
                              args.lanes_per_word)
          : l2_word_index(args.spread, thread, thread >> 5, lane, sizeof(Word));
  Word* const word = static_cast<Word*>(args.words) + index;
  unsigned int acc = 0u;
  if (args.dependent) {
    // One atomic in flight per thread: the next address waits on this result (never moves).
#pragma unroll 1
    for (int it = 0; it < args.iterations * static_cast<int>(kL2Unroll); ++it)
      acc += issue<kOp>(word + (acc == args.sentinel ? 1 : 0), static_cast<unsigned int>(it));
  } else {
#pragma unroll 1
    for (int it = 0; it < args.iterations; ++it) {
#pragma unroll
      for (unsigned int j = 0; j < kL2Unroll; ++j) acc += issue<kOp>(word, j);
    }
  }
  if (acc == args.sentinel) args.sink[blockIdx.x] = acc;  // never taken
}

namespace {

template <size_t... I>
constexpr std::array<const void*, sizeof...(I)> kernel_handles(std::index_sequence<I...>) {
  static_assert(((sizeof(typename WordOf<kGlobalAtomicOpTraits[I].op>::type) ==
                  static_cast<size_t>(kGlobalAtomicOpTraits[I].word_bytes)) && ...),
                "a word type disagrees with its op's traits");
  return {{reinterpret_cast<const void*>(&l2_atomic_kernel<kGlobalAtomicOpTraits[I].op>)...}};
}

// One instantiation per entry of the op table (common/include/atomq/common/global_atomic.hpp).
const std::array<const void*, kGlobalAtomicOpTraits.size()> kHandles =
    kernel_handles(std::make_index_sequence<kGlobalAtomicOpTraits.size()>{});

}  // namespace

const void* l2_atomic_kernel_handle(GlobalAtomicOp op) {
  for (size_t i = 0; i < kGlobalAtomicOpTraits.size(); ++i)
    if (kGlobalAtomicOpTraits[i].op == op) return kHandles[i];
  return nullptr;
}

int l2_word_bytes(GlobalAtomicOp op) { return traits(op).word_bytes; }

}  // namespace atomq::microbench::kernels
