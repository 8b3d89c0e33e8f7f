// Thresholds and rules of the classifier, as data in one place. Defaults are the seed's
// (U >= 0.90 severe, 0.70..0.90 potential), the shared unit's potential mark moved for Hopper,
// plus the Hopper-specific rules, each with why.
// apply_rules_json overrides any subset from a JSON document (a library call; no CLI option
// loads one yet).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "atomq/common/enum_names.hpp"

namespace atomq::model {

// The model's terms a caller can switch off, each a law or an effect beyond the single-server
// queue of the seed (docs/model.md names each). The term ablation (tools/term_ablation.py,
// docs/validation.md) evaluates every recorded verdict without each one: a term that changes no
// verdict is dead weight. Off means the model without that effect (each entry says what stands
// in its place), never another rule.
enum class ModelTerm {
  kQueueLengthFloor,        // n at least X x S(1), the fewest warps that sustain the rate
  kSharedCasRetryClass,     // a shared CAS retry loop binds the kernel through its attempts
  kUnitsInSequence,         // a privatized one-wave kernel's shared phase and L2 merge add up
  kDsmemPath,               // the DSMEM path's queue can bind the kernel
  kL2HotAddress,            // the one-address cell where one slice holds most requests
  kL2SpreadRechoice,        // a spread whose S the observed rate allows, when the nearest is too slow
  kL2BusySerialization,     // the busy counter above the cell's share: same-address serialization
  kL2OverstatedSaturation,  // requests x S beyond the time with the busy counter saturated: U 100%
  kL2RoundTrips,            // warps waiting on round trips the slice is not saturated by
  kGlobalCasRetry,          // a global CAS loop's attempts and the retry law's combine what-if
  kLoadLatencyFloor,        // Little's law on the loads: a floor under the rest of the kernel
  kOverlapInterval,         // the full-overlap bound of the intervals it sets (off: low = the least change)
  kHotWordLanes,            // the lanes on a hot address's busiest word (off: a whole warp on the word)
  kProbeChain,              // a probe chain's CASes priced as loads
  kWarpCopies,              // the seed's one copy per warp, with its occupancy and merge cost
  kMergePerLine,            // a privatized merge: one request per line of contiguous words (off: per word)
  kSharedCasSpin,           // a shared CAS loop priced by the table's CAS-spin cells (off: the S table's rounds)
  kLaunchFloor,             // no what-if faster than an empty kernel of the grid (off: no such floor)
  kPrivatizeHotWordsOnly,   // privatizing's least change: only a hot slice's hot words fit shared memory
  kLanesPerSector,          // a warp merge priced from the atomics' distinct sectors (off: hot words only)
  kRequestPort,             // the SMs' request port held by the atomics binds (off: the slice alone)
};
constexpr std::array<EnumName<ModelTerm>, 21> enum_names(ModelTerm) {
  return {{{ModelTerm::kQueueLengthFloor, "queue_length_floor"},
           {ModelTerm::kSharedCasRetryClass, "shared_cas_retry_class"},
           {ModelTerm::kUnitsInSequence, "units_in_sequence"},
           {ModelTerm::kDsmemPath, "dsmem_path"},
           {ModelTerm::kL2HotAddress, "l2_hot_address"},
           {ModelTerm::kL2SpreadRechoice, "l2_spread_rechoice"},
           {ModelTerm::kL2BusySerialization, "l2_busy_serialization"},
           {ModelTerm::kL2OverstatedSaturation, "l2_overstated_saturation"},
           {ModelTerm::kL2RoundTrips, "l2_round_trips"},
           {ModelTerm::kGlobalCasRetry, "global_cas_retry"},
           {ModelTerm::kLoadLatencyFloor, "load_latency_floor"},
           {ModelTerm::kOverlapInterval, "overlap_interval"},
           {ModelTerm::kHotWordLanes, "hot_word_lanes"},
           {ModelTerm::kProbeChain, "probe_chain"},
           {ModelTerm::kWarpCopies, "warp_copies"},
           {ModelTerm::kMergePerLine, "merge_per_line"},
           {ModelTerm::kSharedCasSpin, "shared_cas_spin"},
           {ModelTerm::kLaunchFloor, "launch_floor"},
           {ModelTerm::kPrivatizeHotWordsOnly, "privatize_hot_words_only"},
           {ModelTerm::kLanesPerSector, "lanes_per_sector"},
           {ModelTerm::kRequestPort, "request_port"}}};
}

struct Rules {
  // Utilization classes (seed §6.1: 0.90 and 0.70). The shared unit's potential mark moved to
  // 0.80 on Hopper: the threshold sweep (docs/validation.md, "Thresholds on Hopper") found the
  // unit binding at U 0.93 (k = 32) and not at 0.74 (k = 32) or below; 0.80 lies between.
  double severe_utilization = 0.90;
  double potential_utilization = 0.80;
  // The L2 slices' potential mark keeps the seed's 0.70: the all-lanes round-trip sweep brackets
  // it between 0.71 (not bound) and 0.94 (bound) on an H100, but the suite's hash build at load 0.5
  // binds (2.1x) at L2 U 0.796 (docs/validation.md, "The round-trip sweep").
  double l2_potential_utilization = 0.70;
  // A kernel is atomic-bound when it would run this much faster without its atomics: the mark
  // the validation suite's ablations are judged by (tools/validation_summary.py). A resource the
  // atomics share with other requests (the SMs' request port) binds through them when it is
  // saturated and leaving it would gain this much: their share at least 1 - 1/gain.
  double atomic_bound_gain = 1.25;

  // High utilization + high conflict (seed: U > 0.90, e near 32). On Hopper the conflict is
  // the wavefronts per instruction k, not e: merged same-address POPC.INC has e = 32, k = 1.
  double high_conflict_utilization = 0.90;
  double high_conflict_min_k = 4.0;
  // Replication factor the what-if proposes (k becomes max(1, k / factor)).
  double replication_factor = 8.0;

  // High utilization + low conflict (seed: U > 0.80, e < 8).
  double low_conflict_utilization = 0.80;
  double low_conflict_max_e = 8.0;
  double low_conflict_max_k = 2.0;

  // CAS-heavy stream: CAS costs ~2 wavefronts per lane and retries multiply instructions.
  double cas_heavy_min_c = 0.5;
  // Retry amplification (CAS lane-operations per useful update) worth reporting.
  double cas_amplification_warn = 1.5;

  // CAS retry loop (per-instruction data): attempts per update worth a finding; the loop
  // binds the kernel (class potential) when this share of its warp instructions runs in the
  // loop, and severely at cas_retry_severe_attempts attempts per update or more.
  double cas_retry_min_attempts = 2.0;
  double cas_retry_bound_loop_share = 0.5;
  double cas_retry_severe_attempts = 8.0;

  // Hidden memory bottleneck: U below the potential threshold while DRAM is this busy
  // (fraction of the device's reachable bandwidth), or in a comparison, U drops by at least
  // memory_u_drop while DRAM bytes grow by at least memory_traffic_growth (relative).
  double memory_busy_fraction = 0.6;
  double memory_u_drop = 0.10;
  double memory_traffic_growth = 0.25;

  // The L2 queue (docs/model.md, "The L2 queue"). One hot address: the hottest slice serves at
  // least this share of all requests ...
  double l2_hot_address_min_share = 0.5;
  // ... and no faster than the calibrated same-address rate allows, within this relative
  // tolerance (a slice that retires requests faster holds several addresses). The same
  // tolerance bounds the op chosen by the observed rate when the SASS hint is absent.
  double l2_rate_tolerance = 0.35;
  // Few addresses on uneven slices: the hottest slice serves at least this many times the
  // mean slice's requests (one_line service time); below it the requests are spread.
  double l2_hot_slice_min_concentration = 3.0;
  // What-if "spread hot counters": copies of a hot address over this many slices.
  double l2_replication_slices = 8.0;
  // Already privatized: the kernel has shared atomics and merges at most this many L2
  // requests per block (a per-block merge of its bins).
  double privatized_max_requests_per_block = 8192.0;
  // The busy counter agrees with U when it is within this of U x the calibrated busy share.
  double l2_busy_cross_check_tolerance = 0.15;

  // Latency-bound: response time R = n / X within this factor of the unloaded latency.
  double latency_bound_max_r_over_l = 2.0;

  // What-if intervals, full-overlap end: a unit whose U (busiest SM) is this far below 1 or more
  // left time that only the rest of the kernel can have used, so under full overlap the rest
  // took the whole kernel; between, its share falls linearly to the counters' floors at U = 1.
  // 0.05: the calibrated S predicts pure-atomic kernels' time within 1-5% (docs/model.md).
  double overlap_saturation_tolerance = 0.05;

  // Imbalance across SMs worth a note: U_max / U_mean at or above this.
  double imbalance_ratio = 1.25;

  // Counter consistency: |alu + cas - total| / total above this is inconsistent.
  double counter_sum_tolerance = 0.01;
  // k below 1 - this is impossible (every instruction has at least one wavefront).
  double wavefront_tolerance = 0.02;

  // Terms switched off (bit i: ModelTerm i); none by default. JSON: "terms_off": [names].
  std::uint32_t terms_off = 0;
  bool uses(ModelTerm t) const { return (terms_off & term_bit(t)) == 0; }
  void switch_off(ModelTerm t) { terms_off |= term_bit(t); }
  static constexpr std::uint32_t term_bit(ModelTerm t) { return 1u << static_cast<unsigned>(t); }
};

// The defaults above.
const Rules& default_rules();

// Overrides from a JSON object {"severe_utilization": 0.92, ...}; unknown keys, wrong types
// and inconsistent thresholds give an error string naming the key (empty on success).
std::string apply_rules_json(const std::string& json_text, Rules& rules);
std::string rules_to_json(const Rules& rules);

}  // namespace atomq::model
