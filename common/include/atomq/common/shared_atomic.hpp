// The vocabulary of a shared-memory atomic instruction stream, used alike by the
// microbenchmarks that generate it, the table that records it and the model that reads it.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "atomq/common/enum_names.hpp"

namespace atomq {

// What a non-CAS atomicAdd(p, 1u) compiles to. At CAS share c = 1 both are the same stream.
enum class OpVariant {
  kPopcInc,  // result unused -> ATOMS.POPC.INC (same-address lanes merge)
  kAdd,      // result used   -> ATOMS.ADD
};
constexpr std::array<EnumName<OpVariant>, 2> enum_names(OpVariant) {
  return {{{OpVariant::kPopcInc, "popc_inc"}, {OpVariant::kAdd, "add"}}};
}

// The dependent atomic of an unloaded-latency chain.
enum class LatencyOp { kAdd, kCas };
constexpr std::array<EnumName<LatencyOp>, 2> enum_names(LatencyOp) {
  return {{{LatencyOp::kAdd, "add"}, {LatencyOp::kCas, "cas"}}};
}

// Address pattern of one warp's active lanes. conflict_degree: 1 = distinct banks,
// k = k-way bank conflict (k lanes per bank on different words, k a power of two in 2..32),
// 0 = all lanes on one word.
struct Pattern {
  int conflict_degree = 1;
  bool same_address() const { return conflict_degree == 0; }
  bool bank_conflict() const { return conflict_degree >= 2; }
  bool operator==(const Pattern& o) const { return conflict_degree == o.conflict_degree; }
  bool operator!=(const Pattern& o) const { return !(*this == o); }
};
inline constexpr Pattern kDistinct{1};
inline constexpr Pattern kSameAddress{0};
inline Pattern bank_conflict(int k) { return Pattern{k}; }

std::string to_string(const Pattern& p);  // "distinct", "conflict2".."conflict32", "same"
std::optional<Pattern> pattern_from_string(const std::string& s);
bool valid_pattern(const Pattern& p);     // 0, 1, or a power of two in 2..32

}  // namespace atomq
