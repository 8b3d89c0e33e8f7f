// The launch floor (docs/model.md, "The launch floor"): an empty kernel of a grid takes the
// time the table's launch sweep measured (the front end, the block dispatch, the completion),
// so no change of a kernel's atomics makes that launch shorter. A what-if whose work collapses
// (a CAS storm combined into one loop per block) is floored there instead of at a time no
// kernel reaches.
#include <fmt/format.h>

#include <algorithm>

#include "atomq/model/metric_names.hpp"
#include "findings.hpp"

namespace atomq::model::detail {

namespace {

// One end of an interval above the best gain: capped there, its time the floor; whether it moved.
bool cap(double& gain, std::optional<double>& time_ns, double best_gain, double floored_ns) {
  if (gain <= best_gain) return false;
  gain = best_gain;
  time_ns = floored_ns;
  return true;
}

void floor_one(WhatIf& w, double duration_ns, double floor_ns, const std::string& note) {
  // A kernel already at or under the floor (another clock than the table's) gains nothing more.
  const double best_gain = std::max(1.0, duration_ns / floor_ns);
  const double floored_ns = duration_ns / best_gain;
  bool moved = false;
  if (w.predicted_time_ns && *w.predicted_time_ns < floored_ns) {
    const double old_ns = *w.predicted_time_ns;
    w.predicted_time_ns = floored_ns;
    w.predicted_cycles *= floored_ns / old_ns;
    w.predicted_utilization *= old_ns / floored_ns;
    moved = true;
  }
  if (w.speedup > best_gain) w.speedup = best_gain, moved = true;
  GainInterval& g = w.interval;
  if (g.evaluated) {
    const bool high = cap(g.high, g.time_ns_at_high, best_gain, floored_ns);
    const bool low = cap(g.low, g.time_ns_at_low, best_gain, floored_ns);
    if (high || low) {
      g.basis += "; " + note;
      moved = true;
    }
  }
  if (moved) w.basis += (w.basis.empty() ? "" : "; ") + note;
}

}  // namespace

void floor_what_ifs_at_launch(KernelAnalysis& a, const KernelProfile& p, const calibration::LaunchSection* launch,
                              const std::string& table_gpu, const Rules& r) {
  if (!r.uses(ModelTerm::kLaunchFloor) || !launch) return;
  // A front end's figure, not a chip's: an H200 ran 1056 x 256 kernels in 2.37 us, under the
  // H100's empty-kernel 2.56 us (docs/calibration.md). Another GPU's floor is not this one's.
  if (!p.device.name.empty() && !table_gpu.empty() && p.device.name != table_gpu) {
    a.notes.push_back(fmt::format("launch floor: not applied: the table's was measured on an {}, this kernel ran on "
                                  "an {}", table_gpu, p.device.name));
    return;
  }
  const auto duration = p.counter(metric::kDurationNs);
  const long long blocks = p.launch.blocks(), threads = p.launch.threads_per_block();
  if (!duration || !(*duration > 0) || blocks <= 0 || threads <= 0) return;
  const std::optional<double> floor_ns =
      launch->floor_ns(static_cast<double>(blocks), static_cast<double>(threads));
  if (!floor_ns || !(*floor_ns > 0)) return;
  const std::string note = fmt::format(
      "no faster than an empty kernel of this grid: {:.2f} us at {} blocks of {} threads (the table's launch floor), "
      "at most {:.3g}x", *floor_ns / 1e3, blocks, threads, std::max(1.0, *duration / *floor_ns));
  for (Finding& f : a.findings)
    for (WhatIf& w : f.what_ifs) floor_one(w, *duration, *floor_ns, note);
}

}  // namespace atomq::model::detail
