// Evaluating the model on one kernel: utilization U (mean and max over SMs), busy time,
// predicted atomic-bound time, throughput- vs latency-bound, the bottleneck class and the
// findings with evidence, recommendation and what-if predictions (docs/model.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "atomq/model/atomic_sites.hpp"
#include "atomq/model/dsmem_unit.hpp"
#include "atomq/model/load_latency.hpp"
#include "atomq/model/inputs.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/l2_queue.hpp"
#include "atomq/model/rules.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/model/utilization_class.hpp"
#include "atomq/model/what_if_id.hpp"

#include "atomq/common/enum_names.hpp"

namespace atomq::model {

enum class FindingKind {
  kInsufficientData,
  kUtilization,                  // the class statement; always present when evaluable
  kHighUtilizationHighConflict,
  kHighUtilizationLowConflict,
  kSharedThroughput,             // saturated by cheap atomics: no conflict, CAS or lane waste to remove
  kCasHeavy,
  kCasRetry,                     // a CAS loop retries: many attempts per update (per-instruction data)
  kLatencyBound,
  kHiddenMemoryBottleneck,
  kL2HotAddress,                 // one global address serializes at one L2 slice
  kL2HotSlice,                   // few addresses / uneven slices: one slice saturates
  kL2Throughput,                 // evenly spread, yet the slices' atomic units are saturated
  kL2RoundTrip,                  // warps wait on their returning atomics' round trips (Little's law)
  kImbalance,
  kOutsideCalibratedRange,
  kTableMismatch,
  kUnmodelledPath,               // atomics on a path without a queue in the model (atomic_paths.hpp)
  kDsmemPath,                    // atomics on a cluster peer's shared memory, the path's U (dsmem_unit.hpp)
};
// Stable ids, used in the analysis JSON and the report.
constexpr std::array<EnumName<FindingKind>, 18> enum_names(FindingKind) {
  return {{{FindingKind::kInsufficientData, "insufficient_data"},
           {FindingKind::kUtilization, "utilization"},
           {FindingKind::kHighUtilizationHighConflict, "high_utilization_high_conflict"},
           {FindingKind::kHighUtilizationLowConflict, "high_utilization_low_conflict"},
           {FindingKind::kSharedThroughput, "shared_throughput"},
           {FindingKind::kCasHeavy, "cas_heavy"},
           {FindingKind::kCasRetry, "cas_retry"},
           {FindingKind::kLatencyBound, "latency_bound"},
           {FindingKind::kHiddenMemoryBottleneck, "hidden_memory_bottleneck"},
           {FindingKind::kL2HotAddress, "l2_hot_address"},
           {FindingKind::kL2HotSlice, "l2_hot_slice"},
           {FindingKind::kL2Throughput, "l2_throughput"},
           {FindingKind::kL2RoundTrip, "l2_round_trip"},
           {FindingKind::kImbalance, "imbalance"},
           {FindingKind::kOutsideCalibratedRange, "outside_calibrated_range"},
           {FindingKind::kTableMismatch, "table_mismatch"},
           {FindingKind::kUnmodelledPath, "unmodelled_path"},
           {FindingKind::kDsmemPath, "dsmem_path"}}};
}

struct Evidence {
  std::string name;
  double value = 0;
  std::string unit;
};

// What the model predicts if some inputs change.
struct ModelChange {
  std::string description;            // plain words
  std::optional<double> queue_length; // n
  std::optional<double> active_lanes; // e (same thread-level work: N scales by e_old / e_new)
  std::optional<double> cas_share;    // c
  std::optional<double> wavefronts_per_instruction;  // k
  double instruction_factor = 1.0;    // N multiplied by this (after the e scaling)
  WhatIfId id = WhatIfId::kCustom;    // the kind of change, carried into the WhatIf
};

// The gain of a what-if as an interval, each end with its basis (docs/model.md, "What-if
// intervals"). high: no overlap (every saved busy cycle of the unit comes off the kernel time: the
// largest gain the change can give); low: full overlap (the unit's busy time ran under the rest
// of the kernel, so only the part of the kernel time above the non-atomic floor shrinks). Both
// are capped by the memory floor (DRAM bytes at the device's peak bandwidth).
struct GainInterval {
  bool evaluated = false;
  double low = 1.0, high = 1.0;             // speedups, low <= high
  std::optional<double> time_ns_at_low;     // predicted kernel time at each end
  std::optional<double> time_ns_at_high;
  std::optional<double> memory_floor_ns;    // DRAM bytes read / peak bandwidth
  double nonatomic_floor_fraction = 0;      // the rest's share of the kernel time under full overlap
  std::string basis;
  bool contains(double measured_speedup) const {
    return evaluated && measured_speedup >= low && measured_speedup <= high;
  }
};

struct WhatIf {
  WhatIfId id = WhatIfId::kCustom;       // the kind of change: what to match on, never `change`
  std::string change;                    // the change in words, with the kernel's figures
  double queue_length = 0, active_lanes = 0, cas_share = 0, wavefronts_per_instruction = 0;
  double instructions = 0;
  double service_cycles = 0;
  double predicted_utilization = 0;      // mean over SMs
  double predicted_cycles = 0;           // busiest SM's active cycles
  std::optional<double> predicted_time_ns;
  double speedup = 1.0;                  // current / predicted time
  bool outside_calibrated_range = false;
  std::string basis;                     // how the prediction was made, in words (L2 what-ifs)
  // The kernel time (no overlap) of the least change the counters allow, where they bound the
  // change only from both sides (e.g. the share of CASes that fail): the interval's low end is
  // taken from it, its high end from predicted_time_ns (the largest change).
  std::optional<double> least_change_time_ns;
  GainInterval interval;                 // speedup is interval.high where the interval is evaluated
  // The expected gain every output shows: the interval's ends, or the speedup where the interval
  // is not evaluated (then both ends are the speedup).
  double gain_low() const { return interval.evaluated ? interval.low : speedup; }
  double gain_high() const { return interval.evaluated ? interval.high : speedup; }
};

// Where a what-if sits in the analysis: findings[finding].what_ifs[what_if].
struct WhatIfRef {
  std::size_t finding = 0, what_if = 0;
};

struct Finding {
  FindingKind kind = FindingKind::kUtilization;
  std::string title;
  std::vector<Evidence> evidence;
  std::vector<std::string> details;  // e.g. each missing or inconsistent counter
  std::string recommendation;
  std::vector<WhatIf> what_ifs;
};

struct Utilization {
  double mean = 0;                   // sum over SMs of busy / sum of active cycles
  double max = 0;                    // busiest SM (wavefront .max); = mean without .max
  double low = 0, high = 0;          // mean U with n̂ halved / doubled: sensitivity to n̂
  ServiceTimeEstimate service;       // S at (n̂, e, c, k)
  double busy_cycles_per_sm = 0;     // mean over SMs
  double busy_cycles_busiest_sm = 0;
  std::optional<double> atomic_bound_time_ns;  // the busiest SM's busy time at the clock
};

// Little's law: X = N / T per SM-cycle with n̂ in flight gives R = n̂ / X.
struct Boundness {
  double throughput_per_sm_cycle = 0;
  double response_cycles = 0;          // R
  double unloaded_latency_cycles = 0;  // L: calibrated dependent-chain latency
  std::string latency_method;
  double queueing_delay_cycles = 0;    // R - L (>= 0)
  std::string verdict;                 // "throughput-bound", "latency-bound", "other work"
  std::optional<double> cas_lane_ops_per_update;  // retry amplification
};

// A privatized kernel in one wave of blocks: each block merges into global memory only after its
// own shared phase (__syncthreads), and all blocks run side by side, so the merges meet at the
// L2 slices while the shared units idle: the two busy times add up instead of overlapping
// (docs/model.md, "Units in sequence").
struct UnitsInSequence {
  bool evaluated = false;      // false: not a privatized one-wave kernel using both units
  double utilization = 0;      // shared U (mean) + the hottest slice's U
  UtilizationClass utilization_class = UtilizationClass::kNotAtomicBound;
  std::optional<double> atomic_bound_time_ns;  // both busy times, one after the other
  std::string basis;
  bool sets_class = false;     // worse than either unit alone: the kernel's class and headline
};

// The kernel's predicted time: the largest of the floors its counters give (docs/model.md,
// "Predicted kernel time"): the atomic units' busy time (the two in sequence where that sets the
// class), the busiest SM's instruction issue (4 warp instructions per cycle) and the DRAM bytes
// at the peak bandwidth.
struct KernelTimePrediction {
  std::optional<double> atomic_ns, issue_ns, memory_ns;
  std::optional<double> load_latency_ns;  // the load latency floor (load_latency.hpp)
  std::string load_latency_basis;         // its figures, or why it was not evaluated
  std::optional<double> predicted_ns;
  // "atomic units", "instruction issue", "memory", "load latency"; "" when no floor is known
  std::string bound_by;
  // The floor that binds a kernel the atomics do not, in one line with its numbers (DRAM
  // bandwidth, instruction issue, or few SMs doing the work), or what the counters leave open.
  std::string other_floor;
  double sm_active_balance = 0;  // sm__cycles_active.avg / .max: 1 even, near 0 one SM working
};

struct KernelAnalysis {
  std::string kernel_name;
  std::string chip;
  std::string table_chip;
  bool evaluated = false;
  ModelInputs inputs;
  double queue_length = 0;           // n̂ used
  std::string queue_length_method;
  Utilization utilization;
  Boundness boundness;
  // The kernel's class: the worse of the two units' classes.
  UtilizationClass utilization_class = UtilizationClass::kInsufficientData;
  UtilizationClass shared_unit_class = UtilizationClass::kInsufficientData;
  L2Queue l2;  // the L2 slices' queue (l2.evaluated false: its counters or table section absent)
  DsmemUnit dsmem;  // the DSMEM path (dsmem.evaluated false: no DSMEM atomics, or no table section)
  LoadLatencyFloor load_latency;  // the global loads' round trips (load_latency.hpp)
  BindingUnit binding_unit = BindingUnit::kNone;
  UnitsInSequence units_in_sequence;
  KernelTimePrediction time;
  // Per-site figures when the profile has per-instruction counts (atomic_sites.hpp).
  std::vector<AtomicSite> sites;
  SitesBasis sites_basis;  // measured on this launch, or derived from its counters (launch_sites.hpp)
  std::vector<Finding> findings;
  // The what-if the analysis recommends (recommend_what_if): among those that cannot lose, the
  // largest gain the counters guarantee (gain_low), then the largest gain_high; every output
  // names this one with its gain_low() to gain_high().
  std::optional<WhatIfRef> recommended;
  std::vector<std::string> notes;

  const Finding* find(FindingKind kind) const;
  const WhatIf* recommended_what_if() const;
  const Finding* recommended_finding() const;  // the finding whose what-if is recommended
  bool has(FindingKind kind) const { return find(kind) != nullptr; }
};

// Never throws: bad input yields an "insufficient data" finding naming what is wrong.
KernelAnalysis analyze(const KernelProfile& profile, const ServiceTimeModel& model,
                       const Rules& rules = default_rules()) noexcept;

// The interval of every what-if of an evaluated analysis (what_if.cpp): called by analyze().
void attach_gain_intervals(KernelAnalysis& analysis, const KernelProfile& profile, const Rules& rules);

// The interval of a what-if of the shared unit made by predict() (attach_gain_intervals gives one
// to every what-if of analyze()'s findings).
GainInterval shared_unit_interval(const KernelAnalysis& analysis, const KernelProfile& profile, const WhatIf& w,
                                  const Rules& rules = default_rules());

// The what-if to recommend among the analysis' findings (what_if.cpp; called by analyze()): the
// largest speedup among those whose interval does not reach below 1x (a what-if that can lose,
// e.g. one copy per warp, is an estimate, not a fix); none when no what-if qualifies.
std::optional<WhatIfRef> recommend_what_if(const KernelAnalysis& analysis);

// The model's prediction for a change of an evaluated kernel.
WhatIf predict(const KernelAnalysis& analysis, const ServiceTimeModel& model,
               const ModelChange& change);

}  // namespace atomq::model
