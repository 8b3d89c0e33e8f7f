// Per-instruction counts meet the kernel's SASS listing: opcodes, operands, predicates and
// backward-branch loops for the model's atomic sites (model/include/atomq/model/atomic_sites.hpp),
// and which kernels `atomq analyze` collects them for. Logs through spdlog; prints nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "atomq/analyzer/kernel_filter.hpp"
#include "atomq/analyzer/sass_listing.hpp"
#include "atomq/analyzer/source_lines.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/launch_sites.hpp"

namespace atomq::analyzer {

// `counts` with each record's opcode, operands and predicate and the function's loops, and
// the call site's source line where `lines` has one; has_listing stays false without a
// function (no SASS: the sites cannot be told apart).
model::InstructionProfile joined_with_listing(model::InstructionProfile counts, const SassFunction* function,
                                              const SourceLines* lines = nullptr);

// The kernels worth a per-instruction run: with `select`, the symbols whose mangled or
// demangled name it matches (a regex: RE2, linear in the name); else the `count` symbols with atomics (shared or global) that took
// the most time over all their launches; with `retry_suspects_only`, of those only the ones
// whose SASS (`functions`) has the compiler's shared CAS loop (ATOMS.CAST.SPIN: a shared float
// or 64-bit atomicAdd), where the verdict hinges on the attempts per update that only
// per-instruction counts give (a hand-written atomicCAS loop needs an explicit count). Profiles without a symbol are
// skipped.
std::vector<std::string> kernels_for_instructions(const std::vector<model::KernelProfile>& profiles, int count,
                                                  const std::optional<KernelFilter>& select,
                                                  bool retry_suspects_only = false,
                                                  const std::vector<SassFunction>& functions = {});

// The profile's global op hint set from its joined per-instruction counts (executed_global_op in
// sass_atomics.hpp) where they show one: the executed instructions override the listing's loop
// rule. Returns true when the hint changed.
bool global_op_from_executions(model::KernelProfile& profile);

// Every profile of `symbol` gets per-instruction counts (and its global op from them): marked
// measured on the launch(es) a run counted, derived on the others (model/launch_sites.hpp);
// returns how many of each. `runs`: the counts of each process that launched the kernel.
model::AttachedInstructions attach_instructions(std::vector<model::KernelProfile>& profiles, const std::string& symbol,
                                                const std::vector<model::MeasuredInstructions>& runs);

}  // namespace atomq::analyzer
