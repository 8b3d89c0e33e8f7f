// The L2 queue's inputs from the lts / l1tex / SASS counters (docs/model.md, "The L2 queue").
// Absent or malformed counters leave the queue unevaluated with a note, never a problem for
// the shared-unit model: profiles recorded before the L2 counters existed keep working.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "atomq/model/l2_queue.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::model {

namespace {

// A finite, non-negative counter, or nullopt.
std::optional<double> usable(const KernelProfile& profile, const char* name) {
  const auto v = profile.counter(name);
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return v;
}

// The sum of two counters; absent only when both are.
std::optional<double> sum(const KernelProfile& profile, const char* a, const char* b) {
  const auto va = usable(profile, a), vb = usable(profile, b);
  if (!va && !vb) return std::nullopt;
  return va.value_or(0) + vb.value_or(0);
}

// The op the SASS names, when the table calibrates it: measured, or derived where it stands in
// for an opcode without a calibrated op of its own. False when the table lacks it.
bool op_from_sass(const KernelProfile& profile, const std::vector<GlobalAtomicOp>& calibrated_ops,
                  L2Inputs& in) {
  const GlobalAtomicOp op = *profile.global_atomic_op;
  if (std::find(calibrated_ops.begin(), calibrated_ops.end(), op) == calibrated_ops.end()) return false;
  in.candidate_ops = {op};
  if (profile.global_atomic_op_stands_in_for.empty()) {
    in.op_origin = Origin::kMeasured;
    in.op_reason = "from the kernel's SASS";
  } else {
    in.op_origin = Origin::kDerived;
    in.op_reason = fmt::format("from the kernel's SASS: {} has no calibrated op of its own; {}, the nearest "
                               "(same width; return path and operation kept where the table has them), stands in",
                               profile.global_atomic_op_stands_in_for, enum_name(op));
  }
  return true;
}

// Counters cannot tell f32 from u32 or add from min: the candidates the request kinds allow.
void infer_op_candidates(const KernelProfile& profile, const std::vector<GlobalAtomicOp>& calibrated_ops,
                         double atom, double red, double cas, L2Inputs& in) {
  using Op = GlobalAtomicOp;
  if (profile.global_atomic_op && op_from_sass(profile, calibrated_ops, in)) return;
  const std::string uncalibrated =
      profile.global_atomic_op
          ? fmt::format("the SASS names {}, which the table has no cells for (calibrated before atomq knew "
                        "that op: run atomq calibrate); ",
                        enum_name(*profile.global_atomic_op))
          : "no SASS hint: ";
  in.op_origin = Origin::kAssumed;
  if (cas > 0.5 * (atom + red)) {
    in.candidate_ops = {Op::kAtomCasU32, Op::kAtomCasU64};
    in.op_reason = uncalibrated + "most requests are CAS (width unknown)";
  } else if (atom > red) {
    in.candidate_ops = {Op::kAtomAddU32};
    in.op_reason = uncalibrated + "ATOM requests (result returned), taken as atom.add.u32";
  } else {
    in.candidate_ops = {Op::kRedAddU32, Op::kRedAddF32, Op::kRedAddU64, Op::kRedMinU32,
                        Op::kRedMaxU32};
    in.op_reason = uncalibrated + "RED requests only (operation and width unknown)";
  }
}

// L2 cycles of the kernel: the slices' elapsed counter, else duration x the table's L2 clock.
bool elapsed_cycles(const KernelProfile& profile, double table_l2_clock_mhz, L2Inputs& in,
                    std::string& note) {
  const auto elapsed_max = usable(profile, metric::kL2CyclesElapsedMax);
  if (elapsed_max && *elapsed_max > 0) {
    in.elapsed_cycles = *elapsed_max;
    in.elapsed_source = metric::kL2CyclesElapsedMax;
    return true;
  }
  if (in.duration_ns && table_l2_clock_mhz > 0) {
    in.elapsed_cycles = *in.duration_ns * table_l2_clock_mhz / 1000.0;
    in.elapsed_source = "kernel duration x the table's L2 clock";
    return true;
  }
  note = std::string("L2 queue not evaluated: ") + metric::kL2CyclesElapsedMax +
         " missing and no duration with an L2 clock";
  return false;
}

// The distinct sectors of the global atomics per warp instruction: every global memory
// instruction's distinct sectors (SASS-patched) less the loads' (the L1 counts a load's distinct
// sectors) and the stores' (written through to the L2 a sector each). Below one per instruction
// the difference is not the atomics' alone (local spills reach the L2 as writes): unknown.
std::optional<double> atomic_sectors_per_instruction(const KernelProfile& profile,
                                                     const std::optional<double>& instructions) {
  const auto all = usable(profile, metric::kGlobalSectorsSass);
  const auto loads = usable(profile, metric::kL1GlobalLoadSectors);
  const auto stores = usable(profile, metric::kL2WriteSectors);
  if (!all || !loads || !stores || !instructions || !(*instructions > 0)) return std::nullopt;
  const double per_instruction = (*all - *loads - *stores) / *instructions;
  if (!(per_instruction >= 1.0)) return std::nullopt;
  return std::min(per_instruction, 32.0);
}

// The SMs' request port: (cycles handing a request to the crossbar + cycles holding one it did
// not take) / elapsed, over all SMs; and the atomics' share of the L2 requests the SMs sent.
void derive_request_port(const KernelProfile& profile, L2Inputs& in) {
  const auto active = usable(profile, metric::kL1XbarRequestActive);
  const auto stalled = usable(profile, metric::kL1XbarRequestStalled);
  const auto elapsed = usable(profile, metric::kL1CyclesElapsedSum);
  const auto from_sms = usable(profile, metric::kL2RequestsFromSms);
  if (!active || !stalled || !elapsed || !from_sms || !(*elapsed > 0) || !(*from_sms > 0)) return;
  in.request_port_occupancy = std::min(1.0, (*active + *stalled) / *elapsed);
  in.atomic_request_share = std::min(1.0, in.requests / *from_sms);
}

// Slices, share and concentration of the hottest slice, CAS share, requests per instruction.
void derive_shape(const KernelProfile& profile, L2Inputs& in) {
  const auto elapsed_max = usable(profile, metric::kL2CyclesElapsedMax);
  const auto elapsed_sum = usable(profile, metric::kL2CyclesElapsedSum);
  // A count of slices; an absurd ratio (corrupt counters) leaves it unknown, never narrowed.
  if (elapsed_max && elapsed_sum && *elapsed_max > 0 && *elapsed_sum / *elapsed_max <= 65536)
    in.slices = static_cast<int>(std::lround(*elapsed_sum / *elapsed_max));
  in.hottest_share = in.requests > 0 ? std::min(1.0, in.requests_hottest_slice / in.requests) : 0.0;
  const double mean_slice = in.slices > 0 ? in.requests / in.slices : 0.0;
  in.concentration = mean_slice > 0 ? in.requests_hottest_slice / mean_slice : 0.0;
  in.cas_share = in.requests > 0 ? std::min(1.0, in.cas_requests / in.requests) : 0.0;
  in.warp_instructions = sum(profile, metric::kGlobalAtomInst, metric::kGlobalRedInst);
  if (in.warp_instructions && *in.warp_instructions > 0)
    in.requests_per_instruction = in.requests / *in.warp_instructions;
  if (const auto sectors = sum(profile, metric::kL2AtomSectors, metric::kL2RedSectors); sectors && in.requests > 0)
    in.sectors_per_request = *sectors / in.requests;
  in.sectors_per_instruction = atomic_sectors_per_instruction(profile, in.warp_instructions);
  derive_request_port(profile, in);
  if (const auto busy = usable(profile, metric::kL2AtomicBusyMax); busy && in.elapsed_cycles > 0)
    in.busy_fraction = *busy / in.elapsed_cycles;
  in.addresses = profile.global_atomic_addresses;
}

// A present but negative or non-finite L2 counter: the queue is not evaluated on it.
std::optional<std::string> malformed_counter(const KernelProfile& profile) {
  for (const char* name :
       {metric::kL2AtomRequests, metric::kL2RedRequests, metric::kL2AtomRequestsMax,
        metric::kL2RedRequestsMax, metric::kL2CasRequests, metric::kL2AtomSectors, metric::kL2RedSectors,
        metric::kL2AtomicBusyMax,
        metric::kL2CyclesElapsedMax, metric::kL2CyclesElapsedSum}) {
    const auto v = profile.counter(name);
    if (v && (!std::isfinite(*v) || *v < 0))
      return fmt::format("L2 queue not evaluated: {} is {}", name,
                         std::isfinite(*v) ? "negative" : "not a finite number");
  }
  return std::nullopt;
}

}  // namespace

std::optional<L2Inputs> derive_l2_inputs(const KernelProfile& profile, const calibration::L2Section& section,
                                         std::string& note) {
  const double table_l2_clock_mhz = section.l2_clock_mhz;
  L2Inputs in;
  if (auto problem = malformed_counter(profile)) {
    note = *problem;
    return std::nullopt;
  }
  const auto atom = usable(profile, metric::kL2AtomRequests);
  const auto red = usable(profile, metric::kL2RedRequests);
  if (!atom && !red) {
    note = "L2 queue not evaluated: no L2 atomic request counters in the profile";
    return std::nullopt;
  }
  in.requests = atom.value_or(0) + red.value_or(0);
  const auto hottest = sum(profile, metric::kL2AtomRequestsMax, metric::kL2RedRequestsMax);
  if (in.requests > 0 && !hottest) {
    note = fmt::format("L2 queue not evaluated: {} / {} missing (the hottest slice is unknown)",
                       metric::kL2AtomRequestsMax, metric::kL2RedRequestsMax);
    return std::nullopt;
  }
  in.requests_hottest_slice = std::min(hottest.value_or(0), in.requests);
  in.cas_requests = usable(profile, metric::kL2CasRequests).value_or(0);
  if (const auto d = usable(profile, metric::kDurationNs); d && *d > 0) in.duration_ns = d;
  if (!elapsed_cycles(profile, table_l2_clock_mhz, in, note)) return std::nullopt;
  derive_shape(profile, in);
  infer_op_candidates(profile, section.ops, atom.value_or(0), red.value_or(0), in.cas_requests, in);
  return in;
}

}  // namespace atomq::model
