// What-if "replicate per warp" (docs/model.md, "One copy per warp"): the seed's warp_replicated
// histogram gives every warp of a block its own padded copy of the block's shared counters. On
// Hopper the shared unit serializes the lanes of one instruction (k wavefronts), which a copy per
// warp does not split, so the unit's busy time stays; what changes is the shared memory per block
// (fewer resident blocks, fewer warps to hide the rest of the kernel), the merge (every copy read
// once more) and, for a one-wave grid, the number of blocks that merge into global memory.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "findings.hpp"

namespace atomq::model::detail {

namespace {

constexpr double kReservedBytesPerBlock = 1024;            // the runtime's per-block reservation
constexpr double kWordsPerWavefront = 32;                   // one conflict-free warp access per cycle

struct Copies {
  double warps_per_block = 0, resident = 0, resident_after = 0, words = 0;
};

std::optional<Copies> warp_copies(const KernelProfile& p) {
  Copies c;
  c.warps_per_block = std::floor(static_cast<double>(p.launch.threads_per_block()) / 32.0);
  c.resident = p.launch.max_active_blocks_per_sm;
  c.words = static_cast<double>(p.launch.shared_mem_bytes_per_block) / 4.0;
  if (c.warps_per_block < 2 || c.resident <= 0 || c.words <= 0) return std::nullopt;
  const double bytes_after = c.warps_per_block * (c.words + 1) * 4.0;  // padded copies
  c.resident_after = std::min(c.resident, std::floor(kSharedMemoryBytesPerSm / (bytes_after + kReservedBytesPerBlock)));
  if (c.resident_after < 1) return std::nullopt;
  return c;
}

}  // namespace

std::optional<WhatIf> warp_copies_what_if(const KernelAnalysis& a, const KernelProfile& p) {
  const ModelInputs& in = a.inputs;
  const std::optional<Copies> c = warp_copies(p);
  if (!a.evaluated || !c || !in.duration_ns || !(*in.duration_ns > 0) || !in.clock_mhz || !(*in.clock_mhz > 0) ||
      p.device.sm_count <= 0)
    return std::nullopt;
  const double T = *in.duration_ns;
  const double sms = p.device.sm_count;
  const double blocks = static_cast<double>(p.launch.blocks());
  // A persistent grid sized by occupancy shrinks with it; any other grid keeps its blocks.
  const bool persistent = blocks == sms * c->resident;
  const double blocks_per_sm_after = persistent ? c->resident_after : std::ceil(blocks / sms);
  // Zero every extra copy, read every extra copy in the merge: conflict-free warp accesses.
  const double extra_cycles = blocks_per_sm_after * 2.0 * (c->warps_per_block - 1) * c->words / kWordsPerWavefront;
  const double extra_ns = extra_cycles / *in.clock_mhz * 1e3;
  // Best case: the extra work hidden, the rest unchanged, a persistent grid's global merges
  // fewer by the resident blocks lost (their share of the L2 busy time saved).
  const double l2_busy_ns = a.l2.evaluated ? std::min(1.0, a.l2.utilization) * T : 0.0;
  const double merge_saving_ns = persistent ? l2_busy_ns * (1.0 - c->resident_after / c->resident) : 0.0;
  // Nothing saved even at best (no one-wave persistent grid merging into L2): the copies change
  // neither k nor the unit's busy time nor the kernel's time, so this what-if changes nothing.
  if (!(merge_saving_ns > 0)) return std::nullopt;
  const double best_ns = std::max(T - merge_saving_ns, 1e-9);
  // Worst case: the rest latency-bound, slower by the warps lost, and the extra work exposed.
  const double worst_ns = T * (c->resident / c->resident_after) + extra_ns;
  WhatIf w;
  w.id = WhatIfId::kReplicatePerWarp;
  w.change = fmt::format("replicate per warp ({:.0f} padded copies per block): k stays {:.1f}",
                         c->warps_per_block, in.wavefronts_per_instruction);
  // The shared unit's load stays (same n, e, c, k and instructions, so the same S and busy time)
  // while the kernel's time shortens to best_ns: its utilization rises by T / best_ns.
  w.queue_length = a.queue_length;
  w.active_lanes = in.active_lanes;
  w.cas_share = in.cas_share;
  w.instructions = in.instructions;
  w.wavefronts_per_instruction = in.wavefronts_per_instruction;
  w.service_cycles = a.utilization.service.cycles;
  w.outside_calibrated_range = !a.utilization.service.in_range();
  w.predicted_utilization = a.utilization.mean * T / best_ns;
  w.predicted_cycles = in.active_cycles_max * best_ns / T;
  w.predicted_time_ns = best_ns;
  w.speedup = T / best_ns;
  w.basis = fmt::format(
      "a copy per warp leaves the lanes of one instruction on one copy (k unchanged), so the shared unit's busy "
      "time stays; {:.0f} x {:.0f} words per block leave {:.0f} of {:.0f} blocks resident per SM; the merge reads "
      "each extra copy ({:.0f} cycles per SM with zeroing){}",
      c->warps_per_block, c->words + 1, c->resident_after, c->resident, extra_cycles,
      merge_saving_ns > 0 ? fmt::format("; the persistent grid merges {:.0f}% fewer blocks into L2",
                                        100.0 * (1.0 - c->resident_after / c->resident))
                          : "");
  GainInterval& g = w.interval;
  g.evaluated = true;
  g.low = T / worst_ns;
  g.high = T / best_ns;
  g.time_ns_at_low = worst_ns;
  g.time_ns_at_high = best_ns;
  g.basis = fmt::format(
      "high: the merge hidden and the L2 merge saving taken; low: the rest of the kernel latency-bound, slower by "
      "the resident warps lost ({:.0f} to {:.0f} blocks per SM), plus the extra merge work ({:.3g} us) exposed",
      c->resident, c->resident_after, extra_ns / 1e3);
  return w;
}

}  // namespace atomq::model::detail
