// The L2 queue's findings (docs/model.md, "The L2 queue"): the headline when the L2 slices
// bind, and one finding naming the cause (one hot address, a hot slice, or saturated spread
// traffic) with its what-ifs. Idle or unbusy slices get none.
#include <fmt/format.h>

#include <optional>

#include "findings.hpp"
#include "l2_what_if.hpp"

namespace atomq::model::detail {

namespace {

std::string percent(double u) { return fmt::format("{:.0f}%", 100.0 * u); }

std::string cause_in_words(L2ServiceBasis basis) {
  switch (basis) {
    case L2ServiceBasis::kHotAddress: return "one hot address";
    case L2ServiceBasis::kHotSlice: return "few addresses on uneven slices";
    default: return "evenly spread requests";
  }
}

std::vector<Evidence> l2_evidence(const KernelAnalysis& a) {
  const L2Queue& q = a.l2;
  const L2Inputs& in = q.inputs;
  std::vector<Evidence> e = {
      {"l2_utilization", q.utilization, "fraction"},
      {"l2_service_cycles", q.service_cycles, "L2 cycles per request"},
      {"l2_requests", in.requests, "requests"},
      {"l2_requests_hottest_slice", in.requests_hottest_slice, "requests"},
      {"l2_hottest_slice_share", in.hottest_share, "fraction"},
      {"l2_slice_concentration", in.concentration, "x the mean slice"},
      {"l2_slices", static_cast<double>(in.slices), "slices"},
      {"l2_observed_cycles_per_request", in.observed_cycles_per_request(), "L2 cycles"},
      {"l2_elapsed_cycles", in.elapsed_cycles, "L2 cycles"},
      {"shared_utilization", a.evaluated ? a.utilization.mean : 0.0, "fraction"},
  };
  if (in.busy_fraction) e.push_back({"l2_busy_fraction", *in.busy_fraction, "fraction"});
  if (in.requests_per_instruction)
    e.push_back({"l2_requests_per_instruction", *in.requests_per_instruction, "requests"});
  if (in.sectors_per_request) e.push_back({"l2_sectors_per_request", *in.sectors_per_request, "sectors"});
  if (in.cas_requests > 0) e.push_back({"l2_cas_share", in.cas_share, "fraction"});
  return e;
}

std::vector<std::string> l2_details(const L2Queue& q) {
  std::vector<std::string> d = {"service time: " + q.basis_text,
                                fmt::format("op {} ({}: {})", enum_name(q.op),
                                            enum_name(q.op_origin), q.op_reason)};
  if (q.op_origin == Origin::kAssumed)
    d.push_back(fmt::format("U assumes {}; another op of the same request kind changes S and U",
                            enum_name(q.op)));
  if (!q.busy_cross_check.empty()) d.push_back("cross-check: " + q.busy_cross_check);
  return d;
}

struct CauseText {
  FindingKind kind;
  std::string title;
  std::string recommendation;
};

CauseText cause_text(const KernelAnalysis& a, bool privatized, bool warp_aggregated);

// The finding kind of an L2 basis: the one place that maps them (cause_text and the CAS texts).
FindingKind kind_of_basis(L2ServiceBasis basis) {
  switch (basis) {
    case L2ServiceBasis::kHotAddress: return FindingKind::kL2HotAddress;
    case L2ServiceBasis::kHotSlice: return FindingKind::kL2HotSlice;
    default: return FindingKind::kL2Throughput;
  }
}

// A global CAS spin lock, or CAS-heavy traffic elsewhere: what to change about the CASes.
std::optional<CauseText> cas_text(const KernelAnalysis& a, const KernelProfile& p, const Rules& r) {
  const L2Inputs& in = a.l2.inputs;
  if (looks_like_spin_lock(a, p, r))
    return CauseText{kind_of_basis(a.l2.basis),
                     fmt::format("A global CAS spin lock serializes at {}: {:.3g} CAS requests, {} of "
                                 "the requests at one slice, the slice at {}",
                                 a.l2.basis == L2ServiceBasis::kHotAddress ? "one L2 slice" : "the L2 slices of its lock words",
                                 in.cas_requests, percent(in.hottest_share), percent(a.l2.utilization)),
                     "Every waiting warp's atomicCAS on the lock goes to its slice, and the lock passes "
                     "from one holder to the next one at a time. Replace the lock by native atomics "
                     "(atomicAdd / atomicMax per field, after a warp reduction); where a lock is needed, "
                     "spin on a plain load before the CAS and back off with __nanosleep."};
  if (in.cas_requests > 0 && in.cas_share >= r.cas_heavy_min_c) {
    CauseText t = cause_text(a, false, already_warp_aggregated(p));
    t.recommendation += fmt::format(
        " {} of the L2 atomics are CAS: where a CAS can fail (an occupied hash slot, a word another "
        "thread changed), read the word with a plain load first and CAS only where the compare can "
        "succeed.", percent(in.cas_share));
    return t;
  }
  return std::nullopt;
}

CauseText cause_text(const KernelAnalysis& a, bool privatized, bool warp_aggregated) {
  const L2Queue& q = a.l2;
  const std::string u = percent(q.utilization);
  if (privatized)
    return {q.basis == L2ServiceBasis::kSpread ? FindingKind::kL2Throughput : FindingKind::kL2HotSlice,
            fmt::format("L2 merge traffic of an already privatized kernel: the hottest slice at {} "
                        "({})", u, cause_in_words(q.basis)),
            "The kernel already accumulates in shared memory; its merge (many blocks, each "
            "merging a few requests per address) loads L2. Use fewer, persistent blocks (grid = "
            "SMs x resident blocks) so each merges more samples, or merge hierarchically "
            "(thread block clusters with distributed shared memory)."};
  if (q.utilization_basis == L2UtilizationBasis::kRequestPort || q.bound_by_port)
    return {kind_of_basis(q.basis),
            q.bound_by_port
                ? fmt::format("The SMs' path to the L2 is saturated ({} of the time) and the global atomics send {} of "
                              "its requests: they hold it {} of the time (requests x S put the hottest slice at {})",
                              percent(q.inputs.request_port_occupancy.value_or(0)),
                              percent(q.inputs.atomic_request_share.value_or(0)), u, percent(q.request_utilization))
                : fmt::format("The SMs' path to the L2 is held by the global atomics {} of the time: their requests "
                              "wait to enter it (requests x S put the hottest slice at {})",
                              u, percent(q.request_utilization)),
            warp_aggregated
                ? "Each request waits to enter the crossbar while the slices take the ones before it. Send "
                  "fewer requests: privatize into shared memory per block and merge once."
                : "Each request waits to enter the crossbar while the slices take the ones before it; lanes of "
                  "one word travel as separate requests. Send fewer requests: merge the lanes of a word in the "
                  "warp first (__match_any_sync, then one atomic per word), or privatize into shared memory "
                  "per block and merge once."};
  switch (q.basis) {
    case L2ServiceBasis::kHotAddress:
      return {kind_of_basis(q.basis),
              fmt::format("One hot global address serializes at one L2 slice: {} of the requests "
                          "there, the slice at {}", percent(q.inputs.hottest_share), u),
              warp_aggregated
                  ? "Same-address atomics retire one at a time at their slice. Each warp already sends one "
                    "atomic (the SASS elects one lane after a vote and a population count, as the compiler "
                    "does for a warp-uniform address): aggregating in the warp by hand changes nothing. "
                    "Privatize into shared memory per block and merge once, or spread the counter over "
                    "copies in different lines and sum them at the end."
                  : "Same-address atomics retire one at a time at their slice. Aggregate in the warp "
                    "first (one atomic per distinct address: __reduce_add_sync, __match_any_sync), "
                    "privatize into shared memory per block and merge once, or spread the counter "
                    "over copies in different lines and sum them at the end."};
    case L2ServiceBasis::kHotSlice:
      return {kind_of_basis(q.basis),
              fmt::format("Hot L2 slice: a few addresses put {:.1f}x the mean load on one slice, "
                          "the slice at {}", q.inputs.concentration, u),
              "A few lines take most of the atomics: privatize into shared memory per block and "
              "merge once per block, or pad and spread the hot words over lines in different "
              "slices."};
    default:
      return {kind_of_basis(q.basis),
              fmt::format("L2 atomic throughput: the requests are spread, yet the hottest slice is "
                          "at {}", u),
              warp_aggregated
                  ? "Every slice's atomic unit is busy: send fewer global atomics (privatize, or reduce per "
                    "block first; each warp already sends one atomic per address)."
                  : "Every slice's atomic unit is busy: send fewer global atomics (privatize or "
                    "aggregate before the global atomic, or reduce per block first)."};
  }
}

// Warps that wait on their returning atomics' round trips (L2LatencyEvaluation).
CauseText round_trip_text(const KernelAnalysis& a) {
  const L2LatencyEvaluation& l = a.l2.latency;
  return {FindingKind::kL2RoundTrip,
          fmt::format("The warps wait on global atomic round trips: {:.0f} ATOM requests in flight per SM at {:.0f} ns "
                      "each account for {} of the SMs' active time (the hottest slice at {})",
                      l.in_flight_per_sm, l.round_trip_ns, percent(l.utilization), percent(a.l2.utilization)),
          "Each returning atomic (a hash probe's CAS, a CAS loop's attempt, a ticket) holds its warp for a "
          "round trip, and above about 256 requests in flight per SM the round trip grows with the requests "
          "(the SMs' atomic throughput is capped, not the slices'). Issue fewer dependent atomics: probe with "
          "plain loads and CAS only where the compare can succeed, shorten the probe chains (a lower load "
          "factor, a better hash), or use a RED (result unused) where the result is not needed."};
}

}  // namespace

Finding l2_utilization_finding(const KernelAnalysis& a) {
  const L2Queue& q = a.l2;
  Finding f;
  f.kind = FindingKind::kUtilization;
  const std::string level = q.utilization_class == UtilizationClass::kSevere ? "Severe" : "Potential";
  f.title = q.bound_by_round_trips
                ? fmt::format("{} L2 atomic bottleneck: round trips of returning atomics, {} of the SMs' time "
                              "(hottest slice at {})", level, percent(q.latency.utilization), percent(q.utilization))
                : fmt::format("{} L2 atomic bottleneck: {}, utilization {} of the hottest slice", level,
                              cause_in_words(q.basis), percent(q.utilization));
  f.evidence = l2_evidence(a);
  f.details = l2_details(q);
  f.recommendation = "The L2 slices' atomic units limit this kernel (shared atomic unit at " +
                     percent(a.evaluated ? a.utilization.mean : 0.0) +
                     "); the L2 finding below says why and what to change.";
  return f;
}

void add_l2_findings(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m,
                     const Rules& r) {
  const L2Queue& q = a.l2;
  if (q.evaluated && q.bound_by_round_trips) {
    const CauseText text = round_trip_text(a);
    Finding f{text.kind, text.title, l2_evidence(a), l2_details(q), text.recommendation, {}};
    f.evidence.push_back({"atom_requests_in_flight_per_sm", q.latency.in_flight_per_sm, "requests"});
    f.evidence.push_back({"round_trip_ns", q.latency.round_trip_ns, "ns"});
    f.evidence.push_back({"round_trip_utilization", q.latency.utilization, "fraction"});
    f.details.push_back("round trip: " + q.latency.round_trip_basis);
    // The slices' what-ifs remove requests from a slice that is not the bound; the chain's own
    // change is the probe's (cas_probe_what_if.cpp).
    if (std::optional<WhatIf> w = load_before_cas_on_chain(a, profile, m.load_section(), r))
      f.what_ifs.push_back(std::move(*w));
    else
      f.details.push_back("no what-if: the slices' what-ifs remove requests from a slice that is not the bound, and "
                          "the loads that would replace the CASes need the table's load section and CAS requests");
    a.findings.push_back(std::move(f));
    return;
  }
  if (!q.evaluated || !more_bound(q.utilization_class, UtilizationClass::kNotAtomicBound)) return;
  const bool privatized = looks_privatized(a, profile, r);
  const std::optional<CauseText> cas = privatized ? std::nullopt : cas_text(a, profile, r);
  CauseText text = cas ? *cas : cause_text(a, privatized, already_warp_aggregated(profile));
  Finding f;
  f.kind = text.kind;
  f.title = std::move(text.title);
  f.recommendation = std::move(text.recommendation);
  f.evidence = l2_evidence(a);
  f.details = l2_details(q);
  if (profile.global_atomic_warp_aggregated) {
    f.evidence.push_back({"global_atomic_warp_aggregated", *profile.global_atomic_warp_aggregated ? 1.0 : 0.0,
                          "flag"});
  }
  f.what_ifs = l2_what_ifs(a, profile, m, r, privatized, f.details);
  a.findings.push_back(std::move(f));
}

}  // namespace atomq::model::detail
