// The paths an atomic takes on Hopper (docs/model.md, "Atomic paths"): the SM's shared unit
// (ATOMS) and the L2 slices (REDG/ATOMG on device memory) are modelled as queues; a cluster
// peer's shared memory (DSMEM: generic ATOM/RED on its shared window, REDAS), TMA bulk
// reductions (UBLKRED, UTMAREDG), vector float atomics (REDG/ATOMG .F32x2/.F32x4) and atomics
// on host memory (the L2's system aperture) are not yet. Their traffic is named from the
// counters and the SASS so that a kernel on them is never costed as another op.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "atomq/common/enum_names.hpp"
#include "atomq/common/global_atomic.hpp"

namespace atomq::model {

struct KernelProfile;

enum class AtomicPath { kSharedUnit, kL2, kDsmem, kBulkReduction, kVectorL2, kHostMemory, kGeneric };
constexpr std::array<EnumName<AtomicPath>, 7> enum_names(AtomicPath) {
  return {{{AtomicPath::kSharedUnit, "shared_unit"},
           {AtomicPath::kL2, "l2"},
           {AtomicPath::kDsmem, "dsmem"},
           {AtomicPath::kBulkReduction, "bulk_reduction"},
           {AtomicPath::kVectorL2, "vector_l2"},
           {AtomicPath::kHostMemory, "host_memory"},
           // A generic ATOM/RED: its address picks DSMEM or the L2 at run time; the counters resolve
           // it where only one of the two moved (resolve_generic_path).
           {AtomicPath::kGeneric, "generic"}}};
}

// A path with a calibrated queue in the model: vector atomics are the L2's, costed by their own
// cells where the table has them (red.add.f32x2, red.add.f32x4).
inline bool is_modelled(AtomicPath p) {
  return p == AtomicPath::kSharedUnit || p == AtomicPath::kL2 || p == AtomicPath::kVectorL2;
}

// The path of one SASS opcode from the opcode alone: ATOMS -> shared unit; REDG/ATOMG -> L2
// (vector types F32x2/F32x4/... -> vector L2; half pairs F16x2/BF16x2 are one 32-bit word, L2);
// REDAS -> DSMEM; UBLKRED/UTMAREDG -> bulk reduction; ATOM/RED -> generic. nullopt for an
// opcode that is no atomic (ATOMS.CAS included as shared; SYNCS, MEMBAR and loads are not).
std::optional<AtomicPath> sass_atomic_path(const std::string& opcode);

// A generic ATOM (`reduction` false) or RED site's path from the kernel's counters: DSMEM when
// the cluster shared-memory atomic requests moved and the global ones of its kind did not, the L2
// in the reverse case, generic when both or neither did.
AtomicPath resolve_generic_path(const KernelProfile& profile, bool reduction);

// One unmodelled path's traffic in a kernel: what moved, in words, and whether it reaches the
// L2 slices' counters (then the L2 queue cannot cost those requests as one of its ops).
struct PathTraffic {
  AtomicPath path = AtomicPath::kDsmem;
  double amount = 0;       // requests, bytes or instructions, as `amount_unit` says
  std::string amount_unit;
  std::string text;        // "cluster shared-memory (DSMEM) atomics: 1.35e+05 warp requests ..."
  bool reaches_l2 = false;
};

// The unmodelled paths the kernel's counters (DSMEM requests, bulk-reduction bytes, host-memory
// requests at the L2) and SASS (vector atomics, when the table's L2 section, `calibrated_ops`,
// lacks the vector ops) show, in enum order.
std::vector<PathTraffic> unmodelled_path_traffic(const KernelProfile& profile,
                                                 const std::vector<GlobalAtomicOp>& calibrated_ops);

}  // namespace atomq::model
