// The vocabulary of global-memory atomics as the L2 slices serve them, used alike by the
// microbenchmarks that generate them, the table's L2 section that records them and the
// model's L2 queue that reads them.
#pragma once

#include <array>

#include "atomq/common/enum_names.hpp"

namespace atomq {

// A global atomic operation as it reaches L2. RED: the result is unused (REDG); ATOM: the
// result returns to the SM (ATOMG). CAS is always ATOM.
enum class GlobalAtomicOp {
  kRedAddU32,
  kRedAddU64,
  kRedAddF32,
  kRedMinU32,
  kRedMaxU32,
  kAtomAddU32,
  kAtomCasU32,
  kAtomCasU64,
};
constexpr std::array<EnumName<GlobalAtomicOp>, 8> enum_names(GlobalAtomicOp) {
  return {{{GlobalAtomicOp::kRedAddU32, "red.add.u32"},
           {GlobalAtomicOp::kRedAddU64, "red.add.u64"},
           {GlobalAtomicOp::kRedAddF32, "red.add.f32"},
           {GlobalAtomicOp::kRedMinU32, "red.min.u32"},
           {GlobalAtomicOp::kRedMaxU32, "red.max.u32"},
           {GlobalAtomicOp::kAtomAddU32, "atom.add.u32"},
           {GlobalAtomicOp::kAtomCasU32, "atom.cas.u32"},
           {GlobalAtomicOp::kAtomCasU64, "atom.cas.u64"}}};
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
