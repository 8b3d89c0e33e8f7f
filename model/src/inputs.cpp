#include "atomq/model/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "atomq/model/metric_names.hpp"

namespace atomq::model {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Reads counters and records what is missing or malformed.
class CounterReader {
 public:
  CounterReader(const KernelProfile& profile, std::vector<DataProblem>& problems)
      : profile_(profile), problems_(problems) {}

  // A finite, non-negative value, or nullopt (recorded as a problem when required).
  std::optional<double> get(const char* name, bool required) {
    const std::optional<double> v = profile_.counter(name);
    if (!v) {
      if (required) problems_.push_back({name, "missing"});
      return std::nullopt;
    }
    if (!std::isfinite(*v)) {
      problems_.push_back({name, "not a finite number"});
      return std::nullopt;
    }
    if (*v < 0) {
      problems_.push_back({name, "negative (" + number(*v) + ")"});
      return std::nullopt;
    }
    return v;
  }

 private:
  const KernelProfile& profile_;
  std::vector<DataProblem>& problems_;
};

// One of .dot_alu / .dot_cas is missing: it is the total minus the other, unless the other
// already exceeds the total (then the counters contradict each other).
void fill_missing_kind(std::optional<double>& alu, std::optional<double>& cas, double total,
                       const Rules& rules, DerivedInputs& out) {
  const bool alu_missing = !alu;
  const char* missing_name = alu_missing ? metric::kSharedAtomInstAlu : metric::kSharedAtomInstCas;
  const double known = alu_missing ? *cas : *alu;
  if (known > total * (1 + rules.counter_sum_tolerance)) {
    out.problems.push_back({alu_missing ? metric::kSharedAtomInstCas : metric::kSharedAtomInstAlu,
                            number(known) + " exceeds the total " + number(total)});
  } else {
    (alu_missing ? alu : cas) = std::max(0.0, total - known);
    out.notes.push_back(std::string(missing_name) +
                        " missing: taken as the total minus the other kind");
  }
}

// N, N_f, N_c and c: the split by kind must add up to the total, or c is meaningless.
void derive_instruction_mix(CounterReader& read, const Rules& rules, DerivedInputs& out) {
  ModelInputs& in = out.inputs;
  const auto total = read.get(metric::kSharedAtomInst, true);
  auto alu = read.get(metric::kSharedAtomInstAlu, false);
  auto cas = read.get(metric::kSharedAtomInstCas, false);
  if (total && *total == 0)
    out.problems.push_back(
        {metric::kSharedAtomInst,
         "zero: the kernel executed no shared-memory atomics, nothing to model"});
  if (!total || *total <= 0) return;
  in.instructions = *total;
  const std::string alu_name = metric::kSharedAtomInstAlu;
  if (!alu && !cas) {
    out.problems.push_back({alu_name + ", " + metric::kSharedAtomInstCas,
                            "missing: the CAS share c cannot be derived"});
  } else if (!alu || !cas) {
    fill_missing_kind(alu, cas, *total, rules, out);
  } else if (std::fabs(*alu + *cas - *total) > rules.counter_sum_tolerance * *total) {
    out.problems.push_back({alu_name + " + " + metric::kSharedAtomInstCas,
                            "inconsistent: " + number(*alu) + " + " + number(*cas) + " = " +
                                number(*alu + *cas) + " != " + metric::kSharedAtomInst + " = " +
                                number(*total)});
  }
  if (alu && cas) {
    in.fetch_and_op = *alu;
    in.cas = *cas;
    in.cas_share = std::clamp(*cas / *total, 0.0, 1.0);
  }
}

// k = wavefronts / N (at least one per instruction), and the busiest SM's share of N from its
// share of the wavefronts.
void derive_wavefronts(CounterReader& read, const Rules& rules, DerivedInputs& out) {
  ModelInputs& in = out.inputs;
  const auto wf = read.get(metric::kSharedAtomWavefronts, true);
  if (!wf || in.instructions <= 0) return;
  in.wavefronts_per_instruction = *wf / in.instructions;
  if (in.wavefronts_per_instruction < 1.0 - rules.wavefront_tolerance)
    out.problems.push_back({metric::kSharedAtomWavefronts,
                            "inconsistent: " + number(*wf) + " wavefronts for " +
                                number(in.instructions) +
                                " instructions (every instruction takes at least one)"});
  in.wavefronts_per_instruction = std::max(1.0, in.wavefronts_per_instruction);
  const auto wf_max = read.get(metric::kSharedAtomWavefrontsMax, false);
  if (!wf_max) return;
  if (*wf_max > *wf * (1 + 1e-9)) {
    out.problems.push_back({metric::kSharedAtomWavefrontsMax,
                            "inconsistent: the busiest SM's " + number(*wf_max) +
                                " exceeds the total " + number(*wf)});
  } else {
    in.instructions_busiest_sm = *wf_max / in.wavefronts_per_instruction;
    in.have_busiest_sm = *wf_max > 0;
  }
}

// SM count and max warps per SM: the profile first, then the calibration table's provenance.
void derive_device_facts(const KernelProfile& profile, const calibration::Provenance* table,
                         DerivedInputs& out) {
  ModelInputs& in = out.inputs;
  in.sm_count = profile.device.sm_count;
  if (in.sm_count <= 0 && table && table->device.sm_count > 0) {
    in.sm_count = table->device.sm_count;
    out.notes.push_back("SM count taken from the calibration table");
  }
  in.max_warps_per_sm = profile.device.max_warps_per_sm;
  if (in.max_warps_per_sm <= 0 && table && table->device.max_warps_per_sm > 0) {
    in.max_warps_per_sm = table->device.max_warps_per_sm;
    out.notes.push_back("max warps per SM taken from the calibration table");
  }
  if (in.max_warps_per_sm <= 0) out.problems.push_back({"device.max_warps_per_sm", "missing"});
}

// T: active cycles summed over SMs (or .avg x SM count), their mean, and the busiest SM's.
void derive_active_cycles(CounterReader& read, DerivedInputs& out) {
  ModelInputs& in = out.inputs;
  const auto cyc_sum = read.get(metric::kCyclesActiveSum, false);
  const auto cyc_avg = read.get(metric::kCyclesActiveAvg, false);
  const auto cyc_max = read.get(metric::kCyclesActiveMax, false);
  if (cyc_sum && *cyc_sum > 0) {
    in.active_cycles_sum = *cyc_sum;
    in.active_cycles_mean = in.sm_count > 0 ? *cyc_sum / in.sm_count : (cyc_avg ? *cyc_avg : 0);
  } else if (cyc_avg && *cyc_avg > 0 && in.sm_count > 0) {
    in.active_cycles_mean = *cyc_avg;
    in.active_cycles_sum = *cyc_avg * in.sm_count;
    out.notes.push_back(std::string(metric::kCyclesActiveSum) +
                        " missing: taken as .avg x SM count");
  } else {
    out.problems.push_back({metric::kCyclesActiveSum,
                            (cyc_sum || cyc_avg) ? "zero (and no usable .avg with an SM count)"
                                                 : "missing (and no .avg with an SM count)"});
  }
  if (cyc_max && *cyc_max > 0) {
    in.active_cycles_max = *cyc_max;
    if (in.active_cycles_mean > 0 && *cyc_max < in.active_cycles_mean * (1 - 1e-6))
      out.problems.push_back({metric::kCyclesActiveMax, "inconsistent: below the mean over SMs"});
  } else {
    // Without the busiest SM's cycles its utilization cannot be told from the mean.
    in.active_cycles_max = in.active_cycles_mean;
    in.have_busiest_sm = false;
    out.notes.push_back(std::string(metric::kCyclesActiveMax) +
                        " missing or zero: no max-over-SMs utilization");
  }
}

// n̂ (seed): achieved occupancy x max warps per SM; evaluate() may raise it.
void derive_queue_length_seed(CounterReader& read, DerivedInputs& out) {
  const auto occ = read.get(metric::kAchievedOccupancyPct, true);
  if (!occ) return;
  if (*occ <= 0 || *occ > 100.0 * (1 + 1e-6)) {
    out.problems.push_back({metric::kAchievedOccupancyPct,
                            "out of range (" + number(*occ) + "%, expected 0 < x <= 100)"});
  } else {
    out.inputs.queue_length_seed = std::min(1.0, *occ / 100.0) * out.inputs.max_warps_per_sm;
  }
}

// Why the data-bytes counter cannot give e for this profile ("" when it can).
std::string lanes_not_measurable(CounterReader& read, const KernelProfile& profile) {
  if (!read.get(metric::kSharedAtomDataBytes, false))
    return std::string("no ") + metric::kSharedAtomDataBytes + " in the profile";
  if (profile.shared_cas_spin.value_or(false))
    return "the kernel's shared atomics include a CAS loop (ATOMS.CAST.SPIN), whose data bytes do not count lanes";
  if (!profile.shared_atomic_lane_bytes)
    return "no lane width from the kernel's SASS (not found, or 32- and 64-bit shared atomics mixed)";
  return "";
}

// e: thread-level operations per warp instruction when a counter has them, else the data
// bytes over the SASS's lane width, else assumed; the note says which and why.
void derive_active_lanes(CounterReader& read, const KernelProfile& profile, DerivedInputs& out) {
  ModelInputs& in = out.inputs;
  std::optional<double> thread_ops = read.get(metric::kSharedAtomThreadOps, false);
  if (!thread_ops) thread_ops = read.get(metric::kSharedAtomThreadOpsSass, false);
  std::string basis = "thread-level operations / warp instructions";
  const std::string unmeasurable = thread_ops ? "" : lanes_not_measurable(read, profile);
  if (!thread_ops && unmeasurable.empty()) {
    thread_ops = *read.get(metric::kSharedAtomDataBytes, false) / *profile.shared_atomic_lane_bytes;
    basis = std::string(metric::kSharedAtomDataBytes) + " / " + std::to_string(*profile.shared_atomic_lane_bytes) +
            " bytes per lane (SASS) / warp instructions";
  }
  if (thread_ops && in.instructions > 0) {
    in.active_lanes = *thread_ops / in.instructions;
    in.active_lanes_origin = Origin::kMeasured;
    in.active_lanes_basis = basis;
    if (in.active_lanes < 1.0 - 1e-6 || in.active_lanes > 32.0 + 1e-6)
      out.problems.push_back({metric::kSharedAtomThreadOps,
                              "inconsistent: " + number(*thread_ops) + " thread operations for " +
                                  number(in.instructions) + " warp instructions (e = " +
                                  number(in.active_lanes) + ", expected 1..32)"});
    in.active_lanes = std::clamp(in.active_lanes, 1.0, 32.0);
  } else {
    // Full warps, capped by a block smaller than a warp: an upper bound (docs/model.md).
    const long long threads = profile.launch.threads_per_block();
    in.active_lanes = threads > 0 && threads < 32 ? static_cast<double>(threads) : 32.0;
    in.active_lanes_origin = Origin::kAssumed;
    in.active_lanes_basis = "assumed full warps: " + (unmeasurable.empty() ? "no shared atomics" : unmeasurable);
    out.notes.push_back("active lanes e assumed " + number(in.active_lanes) + " (" + unmeasurable + ")");
  }
}

// Kernel duration and SM clock: the clock turns busy cycles into the atomic-bound time.
void derive_time_and_clock(CounterReader& read, const KernelProfile& profile,
                           const calibration::Provenance* table, ModelInputs& in) {
  if (const auto d = read.get(metric::kDurationNs, false); d && *d > 0) in.duration_ns = *d;
  if (profile.device.sm_clock_mhz > 0) {
    in.clock_mhz = profile.device.sm_clock_mhz;
    in.clock_source = "profile";
  } else if (in.duration_ns && in.active_cycles_max > 0) {
    // The longest-active SM is active for (nearly) the whole kernel.
    in.clock_mhz = in.active_cycles_max / *in.duration_ns * 1000.0;
    in.clock_source = "active cycles of the busiest SM / duration (a lower bound)";
  } else if (table && table->sm_clock_mhz_end > 0) {
    in.clock_mhz = table->sm_clock_mhz_end;
    in.clock_source = "calibration table";
  }
}

// The op variant selects the calibrated service times (POPC.INC merges same-address lanes).
void derive_op_variant(const KernelProfile& profile, DerivedInputs& out) {
  ModelInputs& in = out.inputs;
  if (profile.shared_atomic_variant) {
    in.variant = *profile.shared_atomic_variant;
    in.variant_assumed = false;
  } else {
    in.variant = calibration::OpVariant::kAdd;
    in.variant_assumed = true;
    out.notes.push_back("op variant assumed ATOMS.ADD (no SASS hint): same-address lanes "
                        "taken as serialized, which the measured k already reflects");
  }
}

// Optional context for the memory and CAS-retry rules; absence is no problem.
void derive_context(CounterReader& read, const KernelProfile& profile, ModelInputs& in) {
  in.dram_bytes_read = read.get(metric::kDramBytesRead, false);
  if (profile.device.dram_peak_bytes_per_s > 0)
    in.dram_peak_bytes_per_s = profile.device.dram_peak_bytes_per_s;
  in.useful_updates = profile.useful_updates;
}

}  // namespace

// Each step may add problems and notes; their order (the report's) follows the steps'.
DerivedInputs derive_inputs(const KernelProfile& profile, const Rules& rules,
                            const calibration::Provenance* table) {
  DerivedInputs out;
  CounterReader read(profile, out.problems);
  derive_instruction_mix(read, rules, out);
  derive_wavefronts(read, rules, out);
  derive_device_facts(profile, table, out);
  derive_active_cycles(read, out);
  derive_queue_length_seed(read, out);
  derive_active_lanes(read, profile, out);
  derive_time_and_clock(read, profile, table, out.inputs);
  derive_op_variant(profile, out);
  derive_context(read, profile, out.inputs);
  return out;
}

}  // namespace atomq::model
