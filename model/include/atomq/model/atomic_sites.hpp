// Per-site figures from a kernel's per-instruction counts (instruction_profile.hpp): for each
// atomic instruction its executions, active lanes e, wavefronts per instruction k, share of
// the kernel's shared-atomic busy time, whether the compiler warp-aggregated it, and for a
// CAS inside a loop the attempts per update (docs/model.md, "Atomic sites").
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "atomq/common/enum_names.hpp"
#include "atomq/model/atomic_paths.hpp"
#include "atomq/model/instruction_profile.hpp"

namespace atomq::model {

enum class SiteUnit { kShared, kGlobal };
constexpr std::array<EnumName<SiteUnit>, 2> enum_names(SiteUnit) {
  return {{{SiteUnit::kShared, "shared"}, {SiteUnit::kGlobal, "global"}}};
}

struct AtomicSite {
  long long offset = 0;
  std::string opcode;
  std::string operands;
  std::string predicate;
  std::string source;  // "file:line" of the call site; "" without a line table
  SiteUnit unit = SiteUnit::kShared;
  // The path its atomics take: from the opcode; a generic ATOM/RED resolved by the kernel's
  // counters (resolve_generic_path), else generic.
  AtomicPath path = AtomicPath::kSharedUnit;
  double executions_per_launch = 0;       // warp-level
  double lanes_per_instruction = 0;       // e at this site
  double wavefronts_per_instruction = 0;  // k at this site (shared only)
  double ideal_wavefronts_per_instruction = 0;
  double busy_share = 0;                  // of the shared-atomic wavefronts (shared sites)
  bool warp_aggregated = false;           // one predicated lane on a uniform address
  bool is_cas = false;
  bool in_loop = false;
  // CAS in a loop whose entry is countable: executions / entries (warp level) and lanes /
  // lanes entering (one lane's update = one successful attempt).
  std::optional<double> attempts_per_warp_entry;
  std::optional<double> attempts_per_update;
  std::optional<long long> loop_entry_offset;
  double loop_entry_executions = 0;  // warp-level entries into the loop
  double loop_entry_lanes = 0;       // lanes entering it
  double loop_instructions = 0;      // warp-level instructions executed inside the loop, per launch
  double kernel_instructions = 0;    // all warp-level instructions of the kernel, per launch
  // Share of the kernel's warp-level instructions executed inside the site's loop.
  std::optional<double> loop_instruction_share;
};

// Where a launch's site figures come from (launch_sites.hpp): the per-instruction counts of this
// launch (measured), or this launch's own counters scaled by the structure the counts measured on
// another launch of the kernel (derived).
struct SitesBasis {
  bool present = false;  // the profile has per-instruction counts
  InstructionBasis basis = InstructionBasis::kMeasured;
  long long measured_first_launch = 0;  // the kernel's launch(es) the counts measured
  long long measured_launches = 0;
  std::optional<long long> launch;      // this launch among the kernel's (KernelProfile::symbol_launch)
  bool derived = false;                 // derived figures were computed (false: not derivable, sites empty)
  std::string entries_basis;            // derived: what counted this launch's loop entries
  double entry_scale = 0;               // derived: its loop entries / the measured launch's
  std::string text;                     // the basis in words
};

// Atomic sites (ATOMS, ATOMG/ATOM, REDG/RED, REDAS, bulk reductions) in offset order. Empty
// without a listing.
std::vector<AtomicSite> atomic_sites(const InstructionProfile& profile);

// All CAS sites in loops with countable entries taken together (an unrolled source loop gives
// one CAS loop per copy): attempts over all their entries, and the instructions of their loops.
struct CasRetryTotals {
  int sites = 0;
  double attempts_per_update = 0;      // CAS lanes / lanes entering, over all of them
  double attempts_per_warp_entry = 0;  // CAS executions / entries
  double loop_instruction_share = 0;   // the loops' instructions / all the kernel's
  double cas_executions_per_launch = 0;
  double entries_per_launch = 0;       // warp-level entries into the loops: updates by warps
  double lanes_per_entry = 0;          // lanes that enter together
  double kernel_instructions_per_launch = 0;
  double loop_instructions_per_launch = 0;
  const AtomicSite* worst = nullptr;   // the site with the most attempts per update
};
CasRetryTotals cas_retry_totals(const std::vector<AtomicSite>& sites);

// The shared site with the largest busy share, or nullptr.
const AtomicSite* busiest_shared_site(const std::vector<AtomicSite>& sites);

}  // namespace atomq::model
