// Units in sequence (docs/model.md): a privatized kernel whose blocks all fit in one wave runs
// its shared phase, then its merge into global memory, in every block at about the same time,
// so the shared unit and the L2 slices take turns and their busy times add up.
#include <fmt/format.h>

#include <algorithm>

#include "findings.hpp"
#include "l2_what_if.hpp"

namespace atomq::model::detail {

UnitsInSequence units_in_sequence(const KernelAnalysis& a, const KernelProfile& p, const Rules& r) {
  UnitsInSequence s;
  if (!a.evaluated || !a.l2.evaluated || !(a.utilization.mean > 0) || !(a.l2.utilization > 0)) return s;
  const double sms = p.device.sm_count;
  const int resident = p.launch.max_active_blocks_per_sm;
  const double blocks = static_cast<double>(p.launch.blocks());
  // More than one wave: a later block's shared phase overlaps an earlier block's merge.
  if (sms <= 0 || resident <= 0 || blocks > sms * resident) return s;
  if (!looks_privatized(a, p, r)) return s;
  s.evaluated = true;
  s.utilization = a.utilization.mean + a.l2.utilization;
  s.utilization_class = classify(s.utilization, r);
  // Busy times that add up past the kernel's time mean both units were saturated: at most T.
  if (a.inputs.duration_ns) s.atomic_bound_time_ns = *a.inputs.duration_ns * std::min(1.0, s.utilization);
  s.basis = fmt::format(
      "{:.0f} blocks in one wave ({:.0f} SMs x {} resident), {:.0f} global atomic requests per block: each "
      "block merges after its shared phase, so the shared unit's U {:.0f}% and the hottest L2 slice's {:.0f}% "
      "add up to {:.0f}%",
      blocks, sms, resident, a.l2.inputs.requests / blocks, 100.0 * a.utilization.mean, 100.0 * a.l2.utilization,
      100.0 * s.utilization);
  return s;
}

Finding units_in_sequence_finding(const KernelAnalysis& a) {
  const UnitsInSequence& s = a.units_in_sequence;
  Finding f;
  f.kind = FindingKind::kUtilization;
  f.title = fmt::format("{} atomic bottleneck, two units in sequence: shared unit {:.0f}%, then the L2 merge {:.0f}% "
                        "(together {:.0f}%)",
                        s.utilization_class == UtilizationClass::kSevere ? "Severe" : "Potential",
                        100.0 * a.utilization.mean, 100.0 * a.l2.utilization, 100.0 * s.utilization);
  f.evidence = {{"utilization_mean", a.utilization.mean, "fraction"},
                {"l2_utilization", a.l2.utilization, "fraction"},
                {"sequence_utilization", s.utilization, "fraction"}};
  f.details.push_back(s.basis);
  f.recommendation =
      "The blocks' shared atomics and their merge into global memory run one after the other: shorten the "
      "merge (merge only the bins a block touched, or one copy per cluster through distributed shared "
      "memory), let it overlap (more, smaller blocks in several waves), or lighten the shared phase.";
  return f;
}

}  // namespace atomq::model::detail
