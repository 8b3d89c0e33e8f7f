// Thresholds and rules of the classifier, as data in one place. Defaults are the seed's
// (U >= 0.90 severe, 0.70..0.90 potential), the shared unit's potential mark moved for Hopper,
// plus the Hopper-specific rules, each with why.
// apply_rules_json overrides any subset from a JSON document (a library call; no CLI option
// loads one yet).
#pragma once

#include <string>

namespace atomq::model {

struct Rules {
  // Utilization classes (seed §6.1: 0.90 and 0.70). The shared unit's potential mark moved to
  // 0.80 on Hopper: the threshold sweep (docs/validation.md, "Thresholds on Hopper") found the
  // unit binding at U 0.93 (k = 32) and not at 0.74 (k = 32) or below; 0.80 lies between.
  double severe_utilization = 0.90;
  double potential_utilization = 0.80;
  // The L2 slices' potential mark keeps the seed's 0.70: no sweep has placed it, and the suite's
  // hash build at load 0.5 binds (2.1x) at L2 U 0.796, below the shared unit's 0.80.
  double l2_potential_utilization = 0.70;

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
};

// The defaults above.
const Rules& default_rules();

// Overrides from a JSON object {"severe_utilization": 0.92, ...}; unknown keys, wrong types
// and inconsistent thresholds give an error string naming the key (empty on success).
std::string apply_rules_json(const std::string& json_text, Rules& rules);
std::string rules_to_json(const Rules& rules);

}  // namespace atomq::model
