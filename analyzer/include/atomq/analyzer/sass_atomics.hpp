// What atomics one kernel's SASS issues, which counters cannot tell apart: the global op
// (REDG u32 vs f32 vs 64-bit, MIN/MAX, ATOMG ADD, CAS), whose L2 service times differ, and
// the shared variant (ATOMS.POPC.INC vs ATOMS.ADD, CAS, the CAST.SPIN float-add loop).
// Counts are static: instructions in the listing, not executions.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "atomq/analyzer/sass_listing.hpp"
#include "atomq/common/global_atomic.hpp"
#include "atomq/common/shared_atomic.hpp"
#include "atomq/model/atomic_paths.hpp"
#include "atomq/model/instruction_profile.hpp"

namespace atomq::analyzer {

// A global atomic opcode in atomq's vocabulary of calibrated ops (common/include/atomq/
// common/global_atomic.hpp). REDG/RED: result unused; ATOMG/ATOM: result returned (RED/ATOM
// address generically and count as global atomics in the counters). An opcode without a
// calibrated op of its own gets the nearest one as a stand-in (`stand_in`): same width, the
// return path and the operation's kind kept where the table has them (REDG AND/XOR ->
// red.or.u32, signed MIN -> red.min.u32, INC/DEC -> red.add.u32, 64-bit logic/min/max -> the
// 64-bit add, ATOMG F32 add -> atom.add.f16x2 (a 4-byte float ATOM), REDG half pairs -> their
// ATOM, ATOMG vector float adds F32x2/F32x4 -> their REDG). nullopt for other types and
// non-atomics.
struct GlobalOpMatch {
  GlobalAtomicOp op;
  bool stand_in = false;
};
std::optional<GlobalOpMatch> match_global_atomic(const std::string& opcode);

struct SassAtomics {
  // Global atomics in the vocabulary, by op; those outside it are only counted.
  std::map<GlobalAtomicOp, int> global_ops;
  int other_global = 0;
  // The op that issues most, by this rule: the atomics in the most deeply nested
  // backward-branch loop that holds any (all of them when none is in a loop), then the most
  // frequent op among those, ties to the one first in the listing. A loop's body runs many
  // times per straight-line atomic, so its op is the one the L2 mostly serves.
  std::optional<GlobalAtomicOp> dominant_global;
  // The SASS opcode dominant_global stands in for; empty when an instruction at the dominant
  // op's loop depth is exactly that op.
  std::string dominant_global_stands_in_for;

  int shared_popc_inc = 0;    // ATOMS.POPC.INC: result unused, same-address lanes merge
  int shared_add = 0;         // ATOMS.ADD: result used, same-address lanes serialize
  int shared_cas = 0;         // ATOMS.CAS (32 or 64 bit)
  int shared_cast_spin = 0;   // ATOMS.CAST.SPIN: the float (or 64-bit) add's CAS loop
  int shared_other = 0;       // any other ATOMS (MIN, MAX, EXCH, AND, INC...)
  // kPopcInc when every non-CAS shared atomic is ATOMS.POPC.INC, kAdd when any other
  // non-CAS one is there, nullopt when the kernel has none (as KernelProfile's hint reads).
  std::optional<OpVariant> shared_variant;
  // Bytes each lane of a shared atomic moves (4, or 8 for .64) when every ATOMS has the same
  // width and none is CAST.SPIN (a CAS loop's data bytes do not count lanes): turns the
  // data-bytes counter into e. nullopt otherwise, or without shared atomics.
  std::optional<int> shared_lane_bytes;

  // A CAS (shared or global, CAS or CAST.SPIN) inside a backward-branch loop. A CAS retry
  // loop looks like this; so does a counted loop that issues CAS (tests/gpu/targets/
  // multi_kernel_app.cu's cas_distinct): telling them apart needs the data flow.
  bool cas_in_loop = false;

  // Global atomics already aggregated in the warp: one elected lane issues them (a predicated
  // ATOMG/REDG) after a VOTE(U).ANY and a (U)POPC of the active mask, as ptxas emits for an
  // atomicAdd whose address is warp-uniform, or after a warp reduction (REDUX). Counted among
  // the global atomics matched to an op (global_ops).
  int global_warp_aggregated = 0;
  int global_matched() const {
    int n = 0;
    for (const auto& [op, count] : global_ops) n += count;
    return n;
  }
  // Every global atomic of the listing aggregated (none outside the vocabulary either).
  bool every_global_warp_aggregated() const {
    return other_global == 0 && global_matched() > 0 && global_warp_aggregated == global_matched();
  }
  // An atomic exchange among the global atomics, as a spin lock's release compiles to.
  bool has_global_exchange() const {
    return global_ops.count(GlobalAtomicOp::kAtomExchU32) > 0 || global_ops.count(GlobalAtomicOp::kAtomExchU64) > 0;
  }

  // Every atomic instruction of the listing by its path (model/atomic_paths.hpp): REDAS, bulk
  // reductions and vector atomics included; a generic ATOM/RED counts as generic.
  std::map<model::AtomicPath, int> paths;

  bool has_shared_cas() const { return shared_cas + shared_cast_spin > 0; }
  bool any() const { return !global_ops.empty() || other_global + shared_popc_inc + shared_add + shared_cas +
                                                         shared_cast_spin + shared_other > 0; }
};

SassAtomics classify_atomics(const SassFunction& function);

// The global op the executed instructions chose, from per-instruction counts joined with the
// listing: the op whose instructions executed most often (warp level) with a lane on (a
// predicated instruction is counted as executed with every lane off). The loop rule of
// classify_atomics only guesses from the listing: a CAS loop on a path that never runs (PyTorch's
// half add keeps one beside its ATOM.E.ADD.F16x2) is not what the L2 served. stands_in_for is
// the most executed opcode of the op when every executed instruction of it is a stand-in, else
// empty. nullopt when no matched global atomic executed (or the records have no opcodes).
struct ExecutedGlobalOp {
  GlobalAtomicOp op;
  std::string stands_in_for;
  double executions = 0;  // warp-level, of the op's instructions
};
std::optional<ExecutedGlobalOp> executed_global_op(const model::InstructionProfile& instructions);

}  // namespace atomq::analyzer
