// The vocabulary of global-memory atomics as the L2 slices serve them, used alike by the
// microbenchmarks that generate them, the table's L2 section that records them and the
// model's L2 queue that reads them.
#pragma once

#include <array>
#include <cstddef>

#include "atomq/common/enum_names.hpp"

namespace atomq {

// A global atomic operation as it reaches L2. RED: the result is unused (REDG); ATOM: the
// result returns to the SM (ATOMG, or the generic ATOM the compiler emits for half-precision
// pairs). CAS and EXCH are always ATOM. Names follow the SASS: base, operation, type.
enum class GlobalAtomicOp {
  kRedAddU32,
  kRedAddU64,
  kRedAddF32,
  kRedMinU32,
  kRedMaxU32,
  kAtomAddU32,
  kAtomCasU32,
  kAtomCasU64,
  kRedAddF64,
  kAtomAddF64,
  kAtomAddF16x2,
  kAtomAddBF16x2,
  kAtomAddU64,
  kAtomExchU32,
  kAtomExchU64,
  kRedOrU32,
  // The returning forms generated code issues: Triton's atomic_add on float32 returns the old value,
  // and its float atomic_max is an integer max (non-negative values) and min (negative ones).
  kAtomAddF32,
  kAtomMaxS32,
  kAtomMinU32,
  // Vector float adds (sm_90: atomicAdd on float2 / float4, REDG.E.ADD.F32x2 / .F32x4): one lane
  // updates 8 or 16 bytes.
  kRedAddF32x2,
  kRedAddF32x4,
};
constexpr std::array<EnumName<GlobalAtomicOp>, 21> enum_names(GlobalAtomicOp) {
  return {{{GlobalAtomicOp::kRedAddU32, "red.add.u32"},
           {GlobalAtomicOp::kRedAddU64, "red.add.u64"},
           {GlobalAtomicOp::kRedAddF32, "red.add.f32"},
           {GlobalAtomicOp::kRedMinU32, "red.min.u32"},
           {GlobalAtomicOp::kRedMaxU32, "red.max.u32"},
           {GlobalAtomicOp::kAtomAddU32, "atom.add.u32"},
           {GlobalAtomicOp::kAtomCasU32, "atom.cas.u32"},
           {GlobalAtomicOp::kAtomCasU64, "atom.cas.u64"},
           {GlobalAtomicOp::kRedAddF64, "red.add.f64"},
           {GlobalAtomicOp::kAtomAddF64, "atom.add.f64"},
           {GlobalAtomicOp::kAtomAddF16x2, "atom.add.f16x2"},
           {GlobalAtomicOp::kAtomAddBF16x2, "atom.add.bf16x2"},
           {GlobalAtomicOp::kAtomAddU64, "atom.add.u64"},
           {GlobalAtomicOp::kAtomExchU32, "atom.exch.u32"},
           {GlobalAtomicOp::kAtomExchU64, "atom.exch.u64"},
           {GlobalAtomicOp::kRedOrU32, "red.or.u32"},
           {GlobalAtomicOp::kAtomAddF32, "atom.add.f32"},
           {GlobalAtomicOp::kAtomMaxS32, "atom.max.s32"},
           {GlobalAtomicOp::kAtomMinU32, "atom.min.u32"},
           {GlobalAtomicOp::kRedAddF32x2, "red.add.f32x2"},
           {GlobalAtomicOp::kRedAddF32x4, "red.add.f32x4"}}};
}

// What the microbenchmarks, the calibration and the what-ifs need to know of an op.
struct GlobalAtomicOpTraits {
  GlobalAtomicOp op;
  int word_bytes;           // bytes one lane updates
  bool returns_result;      // ATOM (the result returns to the SM), else RED
  bool cas_loop_in_shared;  // the same update in shared memory is a CAS loop on Hopper
};
// Shared-memory forms on sm_90 (cuobjdump of the CUDA 13.0 atomics on __shared__ words): float,
// double, 64-bit integer and half-pair adds are ATOMS.CAST.SPIN loops; 32-bit integer add, min,
// max and or are single ATOMS. Exch (32- and 64-bit) is taken as a single ATOMS.EXCH, not
// listed by that probe; a vector float add in shared memory is taken as the float add's loop.
constexpr std::array<GlobalAtomicOpTraits, 21> kGlobalAtomicOpTraits = {{
    {GlobalAtomicOp::kRedAddU32, 4, false, false},
    {GlobalAtomicOp::kRedAddU64, 8, false, true},
    {GlobalAtomicOp::kRedAddF32, 4, false, true},
    {GlobalAtomicOp::kRedMinU32, 4, false, false},
    {GlobalAtomicOp::kRedMaxU32, 4, false, false},
    {GlobalAtomicOp::kAtomAddU32, 4, true, false},
    {GlobalAtomicOp::kAtomCasU32, 4, true, true},
    {GlobalAtomicOp::kAtomCasU64, 8, true, true},
    {GlobalAtomicOp::kRedAddF64, 8, false, true},
    {GlobalAtomicOp::kAtomAddF64, 8, true, true},
    {GlobalAtomicOp::kAtomAddF16x2, 4, true, true},
    {GlobalAtomicOp::kAtomAddBF16x2, 4, true, true},
    {GlobalAtomicOp::kAtomAddU64, 8, true, true},
    {GlobalAtomicOp::kAtomExchU32, 4, true, false},
    {GlobalAtomicOp::kAtomExchU64, 8, true, false},
    {GlobalAtomicOp::kRedOrU32, 4, false, false},
    {GlobalAtomicOp::kAtomAddF32, 4, true, true},
    {GlobalAtomicOp::kAtomMaxS32, 4, true, false},
    {GlobalAtomicOp::kAtomMinU32, 4, true, false},
    {GlobalAtomicOp::kRedAddF32x2, 8, false, true},
    {GlobalAtomicOp::kRedAddF32x4, 16, false, true},
}};

// The traits table lists every op in the enum's order, as the names table does.
constexpr bool traits_follow_the_enum() {
  for (size_t i = 0; i < kGlobalAtomicOpTraits.size(); ++i)
    if (kGlobalAtomicOpTraits[i].op != static_cast<GlobalAtomicOp>(i) ||
        enum_names(GlobalAtomicOp{})[i].value != static_cast<GlobalAtomicOp>(i))
      return false;
  return kGlobalAtomicOpTraits.size() == enum_names(GlobalAtomicOp{}).size();
}
static_assert(traits_follow_the_enum(), "kGlobalAtomicOpTraits and enum_names(GlobalAtomicOp) follow the enum");

constexpr const GlobalAtomicOpTraits& traits(GlobalAtomicOp op) {
  return kGlobalAtomicOpTraits[static_cast<size_t>(op)];  // in range and in order: checked above
}

// Which addresses a grid of global atomics updates. A 128-byte line lives in one L2 slice,
// so words of one line are "a few addresses in one slice"; lines at a large stride spread
// over the slices by the address hash.
enum class AddressSpread {
  kOneAddress,  // every lane of every warp: one word
  kOneLine,     // the 32 words of one 128-byte line: one slice, distinct addresses
  kManyLines,   // 1024 words, one per 128-byte line: spread over the slices
  kDistinct,    // every thread its own word, contiguous per warp
};
constexpr std::array<EnumName<AddressSpread>, 4> enum_names(AddressSpread) {
  return {{{AddressSpread::kOneAddress, "one_address"},
           {AddressSpread::kOneLine, "one_line"},
           {AddressSpread::kManyLines, "many_lines"},
           {AddressSpread::kDistinct, "distinct"}}};
}

}  // namespace atomq
