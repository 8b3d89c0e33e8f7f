// Probing with loads (docs/model.md, "Probing with loads"): a CAS probe chain whose warps wait on
// the CAS round trips (L2LatencyEvaluation) issues a plain load where it now issues a CAS, and a
// CAS only where the load saw the slot it can claim. The chain keeps its length; each step's
// round trip changes from the CAS's to the load's, and the claims add a CAS after their load.
#include <fmt/format.h>

#include <algorithm>

#include "atomq/model/metric_names.hpp"
#include "l2_what_if.hpp"

namespace atomq::model::detail {

std::optional<ProbeChainChange> probe_chain_with_loads(const KernelAnalysis& a, const KernelProfile& p,
                                                       const calibration::LoadSection* loads, const Rules& r) {
  if (!r.uses(ModelTerm::kProbeChain)) return std::nullopt;
  const L2LatencyEvaluation& l = a.l2.latency;
  const L2Inputs& in = a.l2.inputs;
  // The chain waits on returning atomics only (ATOM requests; a RED's result is not waited for).
  const double returning = p.counter_or_zero(metric::kL2AtomRequests);
  if (!l.evaluated || !(l.round_trip_ns > 0) || !(l.utilization > 0) || !(l.resident_warps_per_sm > 0) ||
      in.cas_requests <= 0 || returning <= 0 || !loads || loads->empty())
    return std::nullopt;
  // The load that replaces a probe's CAS touches the same words: one sector per line, as many
  // lines as the CAS's requests per instruction, from L2 (the slices the CASes were served at).
  const double sectors = std::clamp(l.requests_per_instruction, 1.0, 32.0);
  const std::optional<double> load_ns =
      loads->round_trip_ns(calibration::LoadResidency::kL2, sectors, l.resident_warps_per_sm * sectors);
  if (!load_ns) return std::nullopt;
  ProbeChainChange c;
  c.round_trip_share = std::min(1.0, l.utilization);
  c.cas_share = std::clamp(in.cas_requests / returning, 0.0, 1.0);
  c.cas_round_trip_ns = l.round_trip_ns;
  c.load_round_trip_ns = std::min(*load_ns, l.round_trip_ns);
  // Claims after the fix, per probe step: none (every slot seen was taken), at most one per
  // useful update over the CAS requests (the fix's CAS carries as many lanes as the probe's).
  c.claims_per_step = p.useful_updates ? std::clamp(*p.useful_updates / in.cas_requests, 0.0, 1.0) : 1.0;
  c.step_high = c.load_round_trip_ns / c.cas_round_trip_ns;
  c.step_low = 1.0 + c.claims_per_step;  // a load at the CAS's round trip, then the claims
  c.basis = fmt::format(
      "the warps wait on CAS round trips {:.0f}% of the SMs' time ({:.0f} ns each, {:.0f}% of them CAS); each probe "
      "step becomes a load: high, an L2 load round trip of {:.0f} ns ({:.1f} lines per request, {:.0f} in flight "
      "per SM) and no CAS left; low, the load waits as long as the CAS did (it goes to the same slices) and {} "
      "claim{} its slot with a CAS after it",
      100.0 * c.round_trip_share, c.cas_round_trip_ns, 100.0 * c.cas_share, c.load_round_trip_ns, sectors,
      l.resident_warps_per_sm * sectors,
      p.useful_updates ? fmt::format("{:.2f} steps per CAS request (useful updates / CAS requests)", c.claims_per_step)
                       : std::string("every step (no useful-update count)"),
      p.useful_updates ? "" : "s");
  return c;
}

std::optional<WhatIf> load_before_cas_on_chain(const KernelAnalysis& a, const KernelProfile& p,
                                               const calibration::LoadSection* loads, const Rules& r) {
  const std::optional<ProbeChainChange> chain = probe_chain_with_loads(a, p, loads, r);
  const std::optional<double> duration = a.l2.inputs.duration_ns;
  if (!chain || !duration || !(*duration > 0)) return std::nullopt;
  const ProbeChainChange& c = *chain;
  const double time_ns = *duration;
  WhatIf w;
  w.id = WhatIfId::kLoadBeforeCas;
  w.change = fmt::format("load before CAS: probe with plain loads, CAS only where the load saw a slot to claim: "
                         "{:.3g} CAS requests become loads and at most {:.3g} CASes",
                         a.l2.inputs.cas_requests, a.l2.inputs.cas_requests * c.claims_per_step);
  w.instructions = a.l2.inputs.cas_requests * c.claims_per_step;
  w.service_cycles = a.l2.service_cycles;  // the CASes left are served at the slice's S
  // The chain binds: what it does not wait on stays as it is.
  const double rest = time_ns * (1.0 - c.round_trip_share);
  const double fast = c.time_ns(time_ns, rest, true), slow = c.time_ns(time_ns, rest, false);
  w.predicted_utilization = fast > 0 ? (fast - rest) / fast : 0.0;  // the chain's share of the time left
  w.predicted_time_ns = fast;
  w.least_change_time_ns = slow;
  w.speedup = time_ns / fast;
  w.basis = c.basis;
  GainInterval& g = w.interval;
  g.evaluated = true;
  g.high = w.speedup;
  g.low = time_ns / slow;
  g.time_ns_at_high = fast;
  g.time_ns_at_low = slow;
  g.nonatomic_floor_fraction = 1.0 - c.round_trip_share;
  g.basis = "probe chain with loads: " + c.basis + "; the rest of the kernel stays";
  return w;
}

}  // namespace atomq::model::detail
