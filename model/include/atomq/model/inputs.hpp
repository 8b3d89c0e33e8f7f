// The model's inputs derived from a KernelProfile's counters (docs/model.md, "Inputs from counters"):
// N_f, N_c, N, c, n̂ (seed estimate), e, k, T. Missing, non-finite, negative or inconsistent
// counters become DataProblems naming the counter; nothing here throws or divides by zero.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/rules.hpp"

namespace atomq::model {

// How a quantity was obtained: read from a counter, derived from counters, or assumed.
enum class Origin { kMeasured, kDerived, kAssumed };
constexpr std::array<EnumName<Origin>, 3> enum_names(Origin) {
  return {{{Origin::kMeasured, "measured"}, {Origin::kDerived, "derived"}, {Origin::kAssumed, "assumed"}}};
}

struct DataProblem {
  std::string field;  // the counter or profile field
  std::string what;   // "missing", "negative (-3)", "dot_alu + dot_cas = 90 != 100", ...
};

struct ModelInputs {
  // GPU-wide warp-level shared atomic instructions.
  double instructions = 0;        // N
  double fetch_and_op = 0;        // N_f
  double cas = 0;                 // N_c
  double cas_share = 0;           // c = N_c / N
  double wavefronts_per_instruction = 0;  // k
  // Busiest SM: instructions scaled by its wavefront share (k assumed uniform over SMs).
  double instructions_busiest_sm = 0;
  bool have_busiest_sm = false;

  double active_lanes = 0;        // e
  Origin active_lanes_origin = Origin::kAssumed;
  std::string active_lanes_basis;  // how e was measured, or why it is assumed

  // Seed estimate of the queue length: achieved occupancy x max warps per SM.
  int max_warps_per_sm = 0;
  double queue_length_seed = 0;

  // Active SM cycles: summed over SMs, mean over SMs, busiest SM.
  double active_cycles_sum = 0;
  double active_cycles_mean = 0;
  double active_cycles_max = 0;
  int sm_count = 0;

  std::optional<double> duration_ns;
  std::optional<double> clock_mhz;
  std::string clock_source;

  calibration::OpVariant variant = calibration::OpVariant::kAdd;
  bool variant_assumed = true;

  // Optional context for the memory rule (global atomics: l2_queue.hpp).
  std::optional<double> dram_bytes_read;
  std::optional<double> dram_peak_bytes_per_s;
  std::optional<double> useful_updates;

  // Throughput per active SM-cycle: X = N / sum of active cycles.
  double throughput_per_sm_cycle() const {
    return active_cycles_sum > 0 ? instructions / active_cycles_sum : 0.0;
  }
};

struct DerivedInputs {
  ModelInputs inputs;
  std::vector<DataProblem> problems;  // non-empty: the model cannot be evaluated
  std::vector<std::string> notes;     // assumptions and fallbacks taken, in plain words
  bool usable() const { return problems.empty(); }
};

// table_provenance (may be null) fills SM count, max warps per SM and clock when the
// profile lacks them.
DerivedInputs derive_inputs(const KernelProfile& profile, const Rules& rules,
                            const calibration::Provenance* table_provenance);

}  // namespace atomq::model
