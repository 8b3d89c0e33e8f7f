// Classifying a kernel's atomic instructions by opcode (parsed by model/sass_opcode.hpp).
#include "atomq/analyzer/sass_atomics.hpp"

#include "atomq/model/sass_opcode.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

namespace atomq::analyzer {

namespace {

using ParsedOpcode = model::SassOpcode;

ParsedOpcode parse_opcode(const std::string& opcode) { return model::parse_sass_opcode(opcode); }

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

// Warp aggregation before a predicated (one elected lane's) atomic, within the few instructions
// since the previous atomic: a vote of the active lanes (VOTE.ANY / VOTEU.ANY) and its population
// count (POPC / UPOPC), as ptxas emits for an atomicAdd of a constant on a warp-uniform address,
// or a warp reduction of the values (REDUX / UREDUX, __reduce_add_sync). An atomic on a per-lane
// address has neither.
constexpr size_t kAggregationWindow = 16;

bool is_atomic(const ParsedOpcode& p) { return is_global_atomic(p) || p.base == "ATOMS"; }

bool warp_aggregated(const std::vector<SassInstruction>& instructions, size_t at) {
  if (instructions[at].predicate.empty()) return false;
  bool vote = false, popc = false, reduction = false;
  for (size_t i = at; i-- > 0 && at - i <= kAggregationWindow;) {
    const std::string& op = instructions[i].opcode;
    if (is_atomic(parse_opcode(op))) break;  // what came before belongs to the previous atomic
    vote = vote || op.rfind("VOTE.ANY", 0) == 0 || op.rfind("VOTEU.ANY", 0) == 0;
    popc = popc || op == "POPC" || op == "UPOPC";
    reduction = reduction || op.rfind("REDUX", 0) == 0 || op.rfind("UREDUX", 0) == 0;
  }
  return (vote && popc) || reduction;
}

}  // namespace

std::optional<GlobalOpMatch> match_global_atomic(const std::string& opcode) {
  using Op = GlobalAtomicOp;
  const ParsedOpcode p = parse_opcode(opcode);
  if (!is_global_atomic(p)) return std::nullopt;
  const bool reduction = p.base == "REDG" || p.base == "RED";
  const bool u32 = p.type.empty() || p.type == "U32";
  const bool s32 = p.type == "S32";
  const bool b64 = p.type == "64" || p.type == "U64" || p.type == "S64";
  const std::string& o = p.operation;
  auto exact = [](Op op) { return GlobalOpMatch{op, false}; };
  auto stand_in = [](Op op) { return GlobalOpMatch{op, true}; };
  if (o == "ADD") {
    if (p.type == "F32") return exact(reduction ? Op::kRedAddF32 : Op::kAtomAddF32);
    if (p.type == "F64") return exact(reduction ? Op::kRedAddF64 : Op::kAtomAddF64);
    if (p.type == "F16x2") return reduction ? stand_in(Op::kAtomAddF16x2) : exact(Op::kAtomAddF16x2);
    if (p.type == "BF16x2") return reduction ? stand_in(Op::kAtomAddBF16x2) : exact(Op::kAtomAddBF16x2);
    if (p.type == "F32x2") return reduction ? exact(Op::kRedAddF32x2) : stand_in(Op::kRedAddF32x2);
    if (p.type == "F32x4") return reduction ? exact(Op::kRedAddF32x4) : stand_in(Op::kRedAddF32x4);
    if (u32) return exact(reduction ? Op::kRedAddU32 : Op::kAtomAddU32);
    if (b64) return reduction ? exact(Op::kRedAddU64) : exact(Op::kAtomAddU64);
    return std::nullopt;  // other vector types, ...
  }
  if (o == "CAS") {
    if (u32) return exact(Op::kAtomCasU32);
    if (b64) return exact(Op::kAtomCasU64);
    return std::nullopt;
  }
  if (o == "EXCH") {
    if (u32 || s32) return exact(Op::kAtomExchU32);
    if (b64) return exact(Op::kAtomExchU64);
    return std::nullopt;
  }
  const bool integer_update = o == "MIN" || o == "MAX" || o == "AND" || o == "OR" || o == "XOR" ||
                              o == "INC" || o == "DEC";
  if (!integer_update || !(u32 || s32 || b64)) return std::nullopt;
  if (!reduction && !b64 && o == "MAX") return s32 ? exact(Op::kAtomMaxS32) : stand_in(Op::kAtomMaxS32);
  if (!reduction && !b64 && o == "MIN") return u32 ? exact(Op::kAtomMinU32) : stand_in(Op::kAtomMinU32);
  if (!reduction) return stand_in(b64 ? Op::kAtomAddU64 : Op::kAtomAddU32);  // result returned
  if (b64) return stand_in(Op::kRedAddU64);
  if (o == "MIN") return u32 ? exact(Op::kRedMinU32) : stand_in(Op::kRedMinU32);
  if (o == "MAX") return u32 ? exact(Op::kRedMaxU32) : stand_in(Op::kRedMaxU32);
  if (o == "OR") return exact(Op::kRedOrU32);
  if (o == "AND" || o == "XOR") return stand_in(Op::kRedOrU32);
  return stand_in(Op::kRedAddU32);  // INC, DEC
}

SassAtomics classify_atomics(const SassFunction& function) {
  SassAtomics out;
  const std::vector<SassLoop> loops = backward_branch_loops(function);
  std::vector<std::pair<long long, GlobalAtomicOp>> global_atomics;
  std::vector<std::pair<long long, GlobalOpMatch>> global_matches;
  std::map<long long, std::string> opcode_at;  // offset -> opcode of each global atomic
  std::vector<int> shared_widths;
  for (size_t i = 0; i < function.instructions.size(); ++i) {
    const SassInstruction& instruction = function.instructions[i];
    const ParsedOpcode p = parse_opcode(instruction.opcode);
    if (is_cas(p) && loop_depth(loops, instruction.offset) > 0) out.cas_in_loop = true;
    if (const std::optional<model::AtomicPath> path = model::sass_atomic_path(instruction.opcode)) ++out.paths[*path];
    if (p.base == "ATOMS") {
      count_shared(p, out);
      shared_widths.push_back(p.type.find("64") != std::string::npos ? 8 : 4);
    } else if (is_global_atomic(p)) {
      if (const std::optional<GlobalOpMatch> m = match_global_atomic(instruction.opcode)) {
        ++out.global_ops[m->op];
        if (warp_aggregated(function.instructions, i)) ++out.global_warp_aggregated;
        global_atomics.emplace_back(instruction.offset, m->op);
        global_matches.emplace_back(instruction.offset, *m);
        opcode_at.emplace(instruction.offset, instruction.opcode);
      } else {
        ++out.other_global;
      }
    }
  }
  out.dominant_global = dominant_op(global_atomics, loops);
  // The dominant op stands in when no instruction at its loop depth is exactly that op.
  if (out.dominant_global) {
    int deepest = 0;
    for (const auto& [offset, op] : global_atomics) deepest = std::max(deepest, loop_depth(loops, offset));
    for (const auto& [offset, m] : global_matches) {
      if (m.op != *out.dominant_global || loop_depth(loops, offset) != deepest) continue;
      if (!m.stand_in) {
        out.dominant_global_stands_in_for.clear();
        break;
      }
      if (out.dominant_global_stands_in_for.empty()) out.dominant_global_stands_in_for = opcode_at.at(offset);
    }
  }
  const bool one_width = !shared_widths.empty() &&
                         std::all_of(shared_widths.begin(), shared_widths.end(),
                                     [&](int w) { return w == shared_widths.front(); });
  if (one_width && out.shared_cast_spin == 0) out.shared_lane_bytes = shared_widths.front();
  if (out.shared_add + out.shared_other > 0) out.shared_variant = OpVariant::kAdd;
  else if (out.shared_popc_inc > 0) out.shared_variant = OpVariant::kPopcInc;
  return out;
}

std::optional<ExecutedGlobalOp> executed_global_op(const model::InstructionProfile& instructions) {
  struct Tally {
    double executions = 0;
    bool any_exact = false;
    std::map<std::string, double> stand_in_opcodes;  // opcode -> executions
  };
  std::map<GlobalAtomicOp, Tally> by_op;
  std::vector<GlobalAtomicOp> order;  // first executed in the listing breaks ties
  for (const model::InstructionRecord& r : instructions.records) {
    // A predicated instruction counts as executed with every lane off: only lanes on count.
    if (r.executions <= 0 || r.lanes <= 0 || r.opcode.empty()) continue;
    const std::optional<GlobalOpMatch> m = match_global_atomic(r.opcode);
    if (!m) continue;
    if (!by_op.count(m->op)) order.push_back(m->op);
    Tally& t = by_op[m->op];
    t.executions += r.executions;
    if (m->stand_in) t.stand_in_opcodes[r.opcode] += r.executions;
    else t.any_exact = true;
  }
  if (order.empty()) return std::nullopt;
  const GlobalAtomicOp best = *std::max_element(order.begin(), order.end(), [&](GlobalAtomicOp a, GlobalAtomicOp b) {
    return by_op[a].executions < by_op[b].executions;
  });
  const Tally& t = by_op[best];
  ExecutedGlobalOp out{best, "", t.executions};
  if (!t.any_exact)
    out.stands_in_for = std::max_element(t.stand_in_opcodes.begin(), t.stand_in_opcodes.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; })
                            ->first;
  return out;
}

}  // namespace atomq::analyzer
