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
  SiteUnit unit = SiteUnit::kShared;
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
  // Share of the kernel's warp-level instructions executed inside the site's loop.
  std::optional<double> loop_instruction_share;
};

// Atomic sites (ATOMS, ATOMG/ATOM, REDG/RED) in offset order. Empty without a listing.
std::vector<AtomicSite> atomic_sites(const InstructionProfile& profile);

// The shared site with the largest busy share, or nullptr.
const AtomicSite* busiest_shared_site(const std::vector<AtomicSite>& sites);

}  // namespace atomq::model
