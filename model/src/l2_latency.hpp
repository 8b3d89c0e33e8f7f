// Little's law on the L2 path (l2_queue.hpp, L2LatencyEvaluation).
#pragma once

#include "atomq/common/global_atomic.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/l2_law.hpp"
#include "atomq/model/l2_queue.hpp"
#include "atomq/model/rules.hpp"

namespace atomq::model::detail {

// The round trips of the kernel's ATOMG instructions (op: the queue's) at the calibrated round
// trip for the requests its resident warps keep in flight; not evaluated, with the reason, where a counter or the table's chains are missing.
L2LatencyEvaluation evaluate_l2_latency(const KernelProfile& profile, GlobalAtomicOp op,
                                        const L2Law& law, const Rules& rules);

}  // namespace atomq::model::detail
