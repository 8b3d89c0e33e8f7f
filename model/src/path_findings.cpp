// Atomics on a path without a queue in the model (atomic_paths.hpp): each is named with its
// traffic; where it reaches the L2's counters the L2 queue is not evaluated (its requests are
// no calibrated op); and a kernel the modelled units do not bind is not called "not atomic-bound"
// while such traffic ran beside them: its class is insufficient data, with the reason.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "atomq/model/metric_names.hpp"
#include "findings.hpp"

namespace atomq::model::detail {

namespace {

const char* title_of(AtomicPath p) {
  switch (p) {
    case AtomicPath::kDsmem: return "DSMEM atomics: not modelled";
    case AtomicPath::kBulkReduction: return "Bulk reductions: not modelled";
    case AtomicPath::kVectorL2: return "Vector atomics: not modelled";
    case AtomicPath::kHostMemory: return "Host-memory atomics: not modelled";
    default: return "Atomics on an unmodelled path";
  }
}

const char* advice_of(AtomicPath p) {
  switch (p) {
    case AtomicPath::kDsmem:
      return "atomq has no queue for the SM-to-SM network yet, so these atomics' time is in no U. Where the "
             "bins fit one block's shared memory, block-local shared atomics take the modelled shared unit "
             "instead of the network.";
    case AtomicPath::kBulkReduction:
      return "atomq has no calibrated cost for bulk reductions yet: the L2 queue is left unevaluated rather "
             "than costing them as scalar reductions.";
    case AtomicPath::kVectorL2:
      return "atomq has no calibrated cost for vector atomics yet: the L2 queue is left unevaluated rather "
             "than costing their requests as one-word ones.";
    case AtomicPath::kHostMemory:
      return "Atomics on host memory cross the host link, which atomq does not model: keep the counters in "
             "device memory and copy the result to the host once.";
    default: return "";
  }
}

}  // namespace

std::optional<std::string> l2_left_to_unmodelled_path(const std::vector<PathTraffic>& traffic) {
  const auto it = std::find_if(traffic.begin(), traffic.end(), [](const PathTraffic& t) { return t.reaches_l2; });
  if (it == traffic.end()) return std::nullopt;
  return "L2 queue not evaluated: " + it->text + " (not modelled)";
}

void add_unmodelled_path_findings(KernelAnalysis& a, const std::vector<PathTraffic>& traffic) {
  if (traffic.empty()) return;
  std::vector<Finding> found;
  for (const PathTraffic& t : traffic) {
    Finding f;
    f.kind = FindingKind::kUnmodelledPath;
    f.title = title_of(t.path);
    f.evidence.push_back({enum_name(t.path), t.amount, t.amount_unit});
    f.details.push_back(t.text);
    f.recommendation = advice_of(t.path);
    found.push_back(std::move(f));
  }
  const bool modelled_unit_binds = more_bound(a.utilization_class, UtilizationClass::kNotAtomicBound);
  if (!modelled_unit_binds) {
    // The modelled units leave the kernel unbound; the unmodelled path may bind it: no class.
    a.notes.push_back(fmt::format("class insufficient_data: the modelled units read {}, and {} ran beside them",
                                  enum_name(a.utilization_class), found.front().title));
    a.utilization_class = UtilizationClass::kInsufficientData;
    a.binding_unit = BindingUnit::kNone;
    a.findings.insert(a.findings.begin(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  } else {
    a.findings.insert(a.findings.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  }
}

namespace {

// What binds a kernel the DSMEM path does not: another unit, else the largest floor.
std::string what_binds_instead(const KernelAnalysis& a) {
  if (a.binding_unit == BindingUnit::kL2AtomicUnit)
    return fmt::format("the hottest L2 slice binds (U {:.0f}%)", 100.0 * a.l2.utilization);
  if (a.binding_unit == BindingUnit::kSharedAtomicUnit)
    return fmt::format("the shared atomic unit binds (U {:.0f}%)", 100.0 * a.utilization.mean);
  if (a.time.bound_by == "memory" || a.time.bound_by == "instruction issue")
    return fmt::format("{} binds: {}", a.time.bound_by, a.time.other_floor);
  return a.time.other_floor.empty() ? std::string("no atomic unit binds") : a.time.other_floor;
}

// block_local_bins: the bins kept in the block's own shared memory. The path's busy time goes;
// the same warp atomics take the SM's shared unit at its conflict-free saturated S (DSMEM
// atomics have no conflict counter: at least that long).
std::optional<WhatIf> block_local_bins(const KernelAnalysis& a, const KernelProfile& p, const ServiceTimeModel& m) {
  const DsmemUnit& d = a.dsmem;
  const auto duration = p.counter(metric::kDurationNs);
  const auto active_avg = p.counter(metric::kCyclesActiveAvg);
  if (!(d.requests > 0) || !d.atomic_bound_time_ns || !duration || !(*duration > 0) || !active_avg ||
      !(*active_avg > 0) || m.table().axes.n.empty())
    return std::nullopt;
  const double T = *duration;
  const ServiceTimeEstimate local = m.at(m.table().axes.n.back(), 32, 0, 1, calibration::OpVariant::kAdd);
  if (!std::isfinite(local.cycles) || !(local.cycles > 0)) return std::nullopt;
  const double local_ns = d.requests_per_sm * local.cycles / *active_avg * T;
  const RestFloor rest = rest_floor(p);
  const double after = std::max({T - *d.atomic_bound_time_ns + local_ns, local_ns, rest.ns});
  if (!(after > 0) || after >= T) return std::nullopt;  // a change that changes nothing is not proposed
  WhatIf w;
  w.id = WhatIfId::kBlockLocalBins;
  w.change = fmt::format("keep the bins in the block's own shared memory: {:.3g} DSMEM warp atomics become the "
                         "SM's own shared atomics",
                         d.requests);
  w.instructions = d.requests;
  w.service_cycles = local.cycles;
  w.predicted_time_ns = after;
  w.speedup = T / after;
  w.basis = fmt::format("the DSMEM path's busy time ({:.3g} us, U {:.0f}%) goes; the same warp atomics at the shared "
                        "unit's conflict-free S {:.2f} cycles take {:.3g} us of the mean SM{}",
                        *d.atomic_bound_time_ns / 1e3, 100.0 * d.utilization, local.cycles, local_ns / 1e3,
                        rest.ns > 0 ? "; at least the " + rest.basis : std::string());
  return w;
}

}  // namespace

void add_dsmem_finding(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m) {
  const DsmemUnit& d = a.dsmem;
  if (!d.evaluated) return;
  Finding f;
  f.kind = FindingKind::kDsmemPath;
  const bool binds = a.binding_unit == BindingUnit::kDsmemPath;
  f.title = fmt::format("{}: the SM's request path to its cluster peers at U {:.0f}%{}",
                        d.requests > 0 ? "DSMEM atomics" : "DSMEM path", 100.0 * d.utilization,
                        binds ? ", binding the kernel" : "");
  f.evidence.push_back({"dsmem_utilization", d.utilization, "fraction"});
  f.evidence.push_back({"dsmem_busy_fraction", d.busy_fraction, "fraction"});
  f.evidence.push_back({"dsmem_warp_requests", d.requests, "warp requests"});
  f.details.push_back(d.basis);
  if (binds)
    f.recommendation = "The cluster peers' shared memory binds: send fewer updates across it (combine equal bins in "
                       "the warp first, or keep hot bins block-local and merge the copies once at the end).";
  if (std::optional<WhatIf> w = block_local_bins(a, profile, m)) f.what_ifs.push_back(std::move(*w));
  if (binds)
    a.findings.insert(a.findings.begin(), std::move(f));
  else
    a.findings.push_back(std::move(f));
}

void name_what_binds_beside_dsmem(KernelAnalysis& a) {
  if (a.binding_unit == BindingUnit::kDsmemPath) return;
  for (Finding& f : a.findings)
    if (f.kind == FindingKind::kDsmemPath) f.recommendation = "Not the DSMEM path: " + what_binds_instead(a) + ".";
}

}  // namespace atomq::model::detail
