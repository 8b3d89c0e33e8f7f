// Classifying a kernel's atomic instructions by opcode. An opcode is a base and its
// modifiers: REDG.E.ADD.F32.FTZ.RN.STRONG.GPU = base REDG, operation ADD, type F32, then
// memory-order and rounding modifiers that do not change which op the L2 serves.
#include "atomq/analyzer/sass_atomics.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>
#include <vector>

namespace atomq::analyzer {

namespace {

struct ParsedOpcode {
  std::string base;       // "REDG"
  std::string operation;  // "ADD"; "" when none of the atomic operations
  std::string type;       // "" (32-bit integer), "U32", "64", "F32", "S32", ...
};

bool is_operation(const std::string& token) {
  static const char* const kOperations[] = {"ADD", "MIN",  "MAX", "CAS", "CAST", "EXCH",   "AND",
                                            "OR",  "XOR",  "INC", "DEC", "POPC", "SAFEADD"};
  return std::find(std::begin(kOperations), std::end(kOperations), token) != std::end(kOperations);
}

// "64", "U32", "S32", "F32", "F64", "F16x2", "BF16x2": a letter prefix, digits, maybe "x2".
bool is_type(const std::string& token) {
  size_t i = 0;
  while (i < token.size() && std::isupper(static_cast<unsigned char>(token[i]))) ++i;
  const size_t digits_begin = i;
  while (i < token.size() && std::isdigit(static_cast<unsigned char>(token[i]))) ++i;
  return i > digits_begin && (i == token.size() || token.substr(i) == "x2");
}

ParsedOpcode parse_opcode(const std::string& opcode) {
  ParsedOpcode parsed;
  size_t begin = 0;
  for (size_t i = 0; i <= opcode.size(); ++i) {
    if (i < opcode.size() && opcode[i] != '.') continue;
    const std::string token = opcode.substr(begin, i - begin);
    begin = i + 1;
    if (parsed.base.empty()) parsed.base = token;
    else if (parsed.operation.empty() && is_operation(token)) parsed.operation = token;
    else if (parsed.type.empty() && is_type(token)) parsed.type = token;
  }
  return parsed;
}

bool is_global_atomic(const ParsedOpcode& p) {
  return p.base == "REDG" || p.base == "RED" || p.base == "ATOMG" || p.base == "ATOM";
}

bool is_cas(const ParsedOpcode& p) {
  return (is_global_atomic(p) || p.base == "ATOMS") && (p.operation == "CAS" || p.operation == "CAST");
}

void count_shared(const ParsedOpcode& p, SassAtomics& out) {
  if (p.operation == "POPC") ++out.shared_popc_inc;
  else if (p.operation == "ADD") ++out.shared_add;
  else if (p.operation == "CAS") ++out.shared_cas;
  else if (p.operation == "CAST") ++out.shared_cast_spin;
  else ++out.shared_other;
}

// How many loops hold `offset`: 0 outside every loop.
int loop_depth(const std::vector<SassLoop>& loops, long long offset) {
  return static_cast<int>(std::count_if(loops.begin(), loops.end(),
                                        [offset](const SassLoop& l) { return l.contains(offset); }));
}

// The rule in sass_atomics.hpp: deepest loop first, then the most frequent, then the first.
std::optional<GlobalAtomicOp> dominant_op(const std::vector<std::pair<long long, GlobalAtomicOp>>& atomics,
                                          const std::vector<SassLoop>& loops) {
  int deepest = 0;
  for (const auto& [offset, op] : atomics) deepest = std::max(deepest, loop_depth(loops, offset));
  std::vector<std::pair<GlobalAtomicOp, int>> counts;  // in listing order of first appearance
  for (const auto& [offset, op] : atomics) {
    if (loop_depth(loops, offset) != deepest) continue;
    auto it = std::find_if(counts.begin(), counts.end(), [op = op](const auto& c) { return c.first == op; });
    if (it == counts.end()) counts.emplace_back(op, 1);
    else ++it->second;
  }
  if (counts.empty()) return std::nullopt;
  return std::max_element(counts.begin(), counts.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

}  // namespace

std::optional<GlobalAtomicOp> global_atomic_op(const std::string& opcode) {
  const ParsedOpcode p = parse_opcode(opcode);
  if (!is_global_atomic(p)) return std::nullopt;
  const bool reduction = p.base == "REDG" || p.base == "RED";
  const bool u32 = p.type.empty() || p.type == "U32";
  const bool u64 = p.type == "64" || p.type == "U64";
  if (reduction && p.operation == "ADD") {
    if (u32) return GlobalAtomicOp::kRedAddU32;
    if (u64) return GlobalAtomicOp::kRedAddU64;
    if (p.type == "F32") return GlobalAtomicOp::kRedAddF32;
  }
  if (reduction && u32 && p.operation == "MIN") return GlobalAtomicOp::kRedMinU32;
  if (reduction && u32 && p.operation == "MAX") return GlobalAtomicOp::kRedMaxU32;
  if (!reduction && u32 && p.operation == "ADD") return GlobalAtomicOp::kAtomAddU32;
  if (!reduction && p.operation == "CAS") {
    if (u32) return GlobalAtomicOp::kAtomCasU32;
    if (u64) return GlobalAtomicOp::kAtomCasU64;
  }
  return std::nullopt;
}

SassAtomics classify_atomics(const SassFunction& function) {
  SassAtomics out;
  const std::vector<SassLoop> loops = backward_branch_loops(function);
  std::vector<std::pair<long long, GlobalAtomicOp>> global_atomics;
  std::vector<int> shared_widths;
  for (const SassInstruction& instruction : function.instructions) {
    const ParsedOpcode p = parse_opcode(instruction.opcode);
    if (is_cas(p) && loop_depth(loops, instruction.offset) > 0) out.cas_in_loop = true;
    if (p.base == "ATOMS") {
      count_shared(p, out);
      shared_widths.push_back(p.type.find("64") != std::string::npos ? 8 : 4);
    } else if (is_global_atomic(p)) {
      if (const std::optional<GlobalAtomicOp> op = global_atomic_op(instruction.opcode)) {
        ++out.global_ops[*op];
        global_atomics.emplace_back(instruction.offset, *op);
      } else {
        ++out.other_global;
      }
    }
  }
  out.dominant_global = dominant_op(global_atomics, loops);
  const bool one_width = !shared_widths.empty() &&
                         std::all_of(shared_widths.begin(), shared_widths.end(),
                                     [&](int w) { return w == shared_widths.front(); });
  if (one_width && out.shared_cast_spin == 0) out.shared_lane_bytes = shared_widths.front();
  if (out.shared_add + out.shared_other > 0) out.shared_variant = OpVariant::kAdd;
  else if (out.shared_popc_inc > 0) out.shared_variant = OpVariant::kPopcInc;
  return out;
}

}  // namespace atomq::analyzer
