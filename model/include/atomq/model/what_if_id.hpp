// The stable id of each kind of what-if the model proposes (docs/model.md): what the analysis
// JSON, the report, the validation suite's cases (predicted_by) and the tests match on, instead
// of the what-if's English text, which carries the kernel's figures and may be reworded.
// Header-only (enum and name table), so the validation suite names them without the model.
#pragma once

#include <array>

#include "atomq/common/enum_names.hpp"

namespace atomq::model {

enum class WhatIfId {
  kCustom,                  // predict() with a caller's ModelChange (the Python module's what_if)
  // The shared atomic unit (findings.cpp)
  kReplicate,               // high conflict: replicate the hot words, k / replication factor
  kNoConflicts,             // high conflict: one wavefront per lane group
  kFullWarps,               // low conflict: e to 32, same thread-level work
  kMoreWarps,               // low conflict or latency-bound: twice the warps in flight
  kNativeFetchAndOp,        // CAS-heavy: a native fetch-and-op instead of the CAS
  // A shared CAS retry loop (cas_retry.cpp): one native atomic per update, its two ends
  kCasLoopNativeBestCase,   // the rest of the kernel at the issue rate
  kCasLoopNativeWorstCase,  // time proportional to instructions
  // The seed's one copy of the shared counters per warp (warp_copies_what_if.cpp)
  kReplicatePerWarp,
  // The L2 slices' queue (l2_what_if.cpp, l2_cas_what_if.cpp)
  kPrivatize,               // privatize into shared memory, merge once per block
  kAggregateInWarp,         // one hot address: the lanes of an instruction merged into one request
  kAggregateHotLanes,       // the hot slice's same-address lanes merged (__match_any_sync)
  kPersistentGrid,          // an already privatized kernel: fewer, persistent blocks
  kSpreadCopies,            // the hot counters spread over copies in several slices
  kLoadBeforeCas,           // probe with plain loads, CAS only where the compare can succeed
  kLockFree,                // a CAS spin lock replaced by native atomics
  kCombineBeforeCas,        // a global CAS loop's updates combined per warp and block first (cas_retry_law.cpp)
  // The DSMEM path (path_findings.cpp)
  kBlockLocalBins,          // a cluster peer's bins kept in the block's own shared memory instead
};
// Stable ids, used in the analysis JSON, the report's exports and the validation timings.
constexpr std::array<EnumName<WhatIfId>, 18> enum_names(WhatIfId) {
  return {{{WhatIfId::kCustom, "custom"},
           {WhatIfId::kReplicate, "replicate"},
           {WhatIfId::kNoConflicts, "no_conflicts"},
           {WhatIfId::kFullWarps, "full_warps"},
           {WhatIfId::kMoreWarps, "more_warps"},
           {WhatIfId::kNativeFetchAndOp, "native_fetch_and_op"},
           {WhatIfId::kCasLoopNativeBestCase, "cas_loop_native_best_case"},
           {WhatIfId::kCasLoopNativeWorstCase, "cas_loop_native_worst_case"},
           {WhatIfId::kReplicatePerWarp, "replicate_per_warp"},
           {WhatIfId::kPrivatize, "privatize"},
           {WhatIfId::kAggregateInWarp, "aggregate_in_warp"},
           {WhatIfId::kAggregateHotLanes, "aggregate_hot_lanes"},
           {WhatIfId::kPersistentGrid, "persistent_grid"},
           {WhatIfId::kSpreadCopies, "spread_copies"},
           {WhatIfId::kLoadBeforeCas, "load_before_cas"},
           {WhatIfId::kLockFree, "lock_free"},
           {WhatIfId::kCombineBeforeCas, "combine_before_cas"},
           {WhatIfId::kBlockLocalBins, "block_local_bins"}}};
}

}  // namespace atomq::model
