// What-if: re-evaluate the busy time with changed inputs and predict the kernel time,
// assuming the unit's idle time (the work that does not wait on atomics) stays as it is; and
// the one what-if of an analysis every output recommends.
#include <algorithm>
#include <cmath>

#include "atomq/model/analysis.hpp"

namespace atomq::model {

WhatIf predict(const KernelAnalysis& a, const ServiceTimeModel& model, const ModelChange& change) {
  const ModelInputs& in = a.inputs;
  WhatIf w;
  w.id = change.id;
  w.change = change.description;
  w.queue_length = change.queue_length.value_or(a.queue_length);
  w.active_lanes = change.active_lanes.value_or(in.active_lanes);
  w.cas_share = std::clamp(change.cas_share.value_or(in.cas_share), 0.0, 1.0);
  w.wavefronts_per_instruction =
      std::max(1.0, change.wavefronts_per_instruction.value_or(in.wavefronts_per_instruction));
  double scale = change.instruction_factor;
  if (change.active_lanes && w.active_lanes > 0) scale *= in.active_lanes / w.active_lanes;
  w.instructions = in.instructions * scale;

  const ServiceTimeEstimate s = model.at(w.queue_length, w.active_lanes, w.cas_share,
                                         w.wavefronts_per_instruction, in.variant);
  w.service_cycles = s.cycles;
  w.outside_calibrated_range = !s.in_range();

  const double busy_now = a.utilization.busy_cycles_busiest_sm;
  const double busy_new = busy_now * scale * (a.utilization.service.cycles > 0
                                                  ? s.cycles / a.utilization.service.cycles
                                                  : 1.0);
  const double cycles_now = in.active_cycles_max;
  double cycles_new = std::max(busy_new, cycles_now - busy_now + busy_new);
  // Reading the input does not get faster: DRAM bytes at the reachable bandwidth.
  if (in.dram_bytes_read && in.dram_peak_bytes_per_s && in.duration_ns &&
      *in.duration_ns > 0 && cycles_now > 0) {
    const double memory_ns = *in.dram_bytes_read / *in.dram_peak_bytes_per_s * 1e9;
    cycles_new = std::max(cycles_new, memory_ns / *in.duration_ns * cycles_now);
  }
  w.predicted_cycles = cycles_new;
  w.speedup = cycles_new > 0 ? cycles_now / cycles_new : 1.0;
  const double time_factor = cycles_now > 0 ? cycles_new / cycles_now : 1.0;
  if (in.duration_ns) w.predicted_time_ns = *in.duration_ns * time_factor;
  const double active_new = in.active_cycles_sum * time_factor;
  w.predicted_utilization =
      active_new > 0 ? w.instructions * s.cycles / active_new : 0.0;
  return w;
}

std::optional<WhatIfRef> recommend_what_if(const KernelAnalysis& a) {
  std::optional<WhatIfRef> best;
  const WhatIf* best_w = nullptr;
  for (std::size_t i = 0; i < a.findings.size(); ++i)
    for (std::size_t j = 0; j < a.findings[i].what_ifs.size(); ++j) {
      const WhatIf& w = a.findings[i].what_ifs[j];
      // Ranked by the gain the counters guarantee (the low end), then by the high end.
      const bool better = !best_w || w.gain_low() > best_w->gain_low() ||
                          (w.gain_low() == best_w->gain_low() && w.gain_high() > best_w->gain_high());
      if ((!w.interval.evaluated || w.interval.low >= 1.0) && better) {
        best = WhatIfRef{i, j};
        best_w = &w;
      }
    }
  return best;
}

const WhatIf* KernelAnalysis::recommended_what_if() const {
  if (!recommended || recommended->finding >= findings.size()) return nullptr;
  const Finding& f = findings[recommended->finding];
  return recommended->what_if < f.what_ifs.size() ? &f.what_ifs[recommended->what_if] : nullptr;
}

const Finding* KernelAnalysis::recommended_finding() const {
  return recommended_what_if() ? &findings[recommended->finding] : nullptr;
}

}  // namespace atomq::model
