// Little's law on the L2 path: the round trips of a kernel's returning global atomics against
// the SMs' active time (l2_queue.hpp, L2LatencyEvaluation; docs/model.md, "Round trips").
#include "l2_latency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "atomq/model/metric_names.hpp"

namespace atomq::model::detail {

namespace {

std::optional<double> counter(const KernelProfile& p, const char* name) {
  const auto it = p.counters.find(name);
  if (it == p.counters.end() || !std::isfinite(it->second) || it->second < 0) return std::nullopt;
  return it->second;
}

// The op whose chains were calibrated nearest the kernel's: CAS for a CAS, else the add.
GlobalAtomicOp chain_op(GlobalAtomicOp op) {
  const bool cas = op == GlobalAtomicOp::kAtomCasU32 || op == GlobalAtomicOp::kAtomCasU64;
  return cas ? GlobalAtomicOp::kAtomCasU32 : GlobalAtomicOp::kAtomAddU32;
}

// Round trip at `in_flight` requests per SM: the op's chains (the median of the cells at the same
// load), interpolated linearly in the load (above its knee the round trip grows in proportion to
// what waits: Little's law at a capped throughput); below the fewest the first, above the most
// the last at that load's throughput.
std::optional<double> round_trip_at(const L2Law& law, GlobalAtomicOp op, double in_flight, std::string& basis) {
  std::map<double, std::vector<double>> by_load;
  for (const L2RoundTripPoint& q : law.round_trip)
    if (q.op == op && q.latency_ns > 0 && q.in_flight_per_sm > 0) by_load[q.in_flight_per_sm].push_back(q.latency_ns);
  if (by_load.empty()) return std::nullopt;
  std::vector<std::pair<double, double>> curve;
  for (auto& [load, values] : by_load) {
    std::sort(values.begin(), values.end());
    curve.emplace_back(load, values[values.size() / 2]);
  }
  basis = fmt::format("dependent {} chains calibrated at {:g} to {:g} requests in flight per SM ({:.0f} to {:.0f} ns)",
                      enum_name(op), curve.front().first, curve.back().first, curve.front().second,
                      curve.back().second);
  if (in_flight <= curve.front().first) return curve.front().second;
  if (in_flight >= curve.back().first) {
    basis += "; above the range: the last load's throughput";
    return curve.back().second * in_flight / curve.back().first;
  }
  const auto hi = std::find_if(curve.begin(), curve.end(), [&](const auto& q) { return q.first >= in_flight; });
  const auto lo = std::prev(hi);
  const double t = (in_flight - lo->first) / (hi->first - lo->first);
  return lo->second + t * (hi->second - lo->second);
}

}  // namespace

L2LatencyEvaluation evaluate_l2_latency(const KernelProfile& p, GlobalAtomicOp op,
                                        const L2Law& law, const Rules& r) {
  L2LatencyEvaluation e;
  const auto atom_inst = counter(p, metric::kGlobalAtomInst) ? counter(p, metric::kGlobalAtomInst)
                                                              : counter(p, metric::kL1GlobalAtomRequests);
  const auto occupancy = counter(p, metric::kAchievedOccupancyPct);
  const auto active_avg = counter(p, metric::kCyclesActiveAvg), active_max = counter(p, metric::kCyclesActiveMax);
  const auto duration = counter(p, metric::kDurationNs);
  const double atom_requests = counter(p, metric::kL2AtomRequests).value_or(0.0);
  if (!atom_inst || !occupancy || !active_avg || !active_max || !duration) {
    e.not_evaluated_reason = fmt::format("missing {}, {}, {} or {}", metric::kGlobalAtomInst,
                                         metric::kAchievedOccupancyPct, metric::kCyclesActiveAvg, metric::kDurationNs);
    return e;
  }
  if (*atom_inst <= 0 || atom_requests <= 0) {
    e.not_evaluated_reason = "no returning global atomics (ATOMG)";
    return e;
  }
  if (p.device.sm_count <= 0 || p.device.max_warps_per_sm <= 0 || *active_max <= 0 || *occupancy <= 0) {
    e.not_evaluated_reason = "no SM count, warps per SM, active cycles or occupancy";
    return e;
  }
  const std::optional<double> rt = round_trip_at(law, chain_op(op), 1.0, e.round_trip_basis);
  if (!rt) {
    e.not_evaluated_reason = "the table has no dependent-chain cells (calibrated before the round-trip sweep)";
    return e;
  }
  e.atom_instructions_per_sm = *atom_inst / p.device.sm_count;
  e.requests_per_instruction = atom_requests / *atom_inst;
  e.resident_warps_per_sm = *occupancy / 100.0 * p.device.max_warps_per_sm;
  e.in_flight_per_sm = e.resident_warps_per_sm * e.requests_per_instruction;
  e.round_trip_ns = *round_trip_at(law, chain_op(op), e.in_flight_per_sm, e.round_trip_basis);
  e.exposed_time_ns = e.atom_instructions_per_sm / e.resident_warps_per_sm * e.round_trip_ns;
  // The busiest SM is active about the whole kernel: the mean SM's active time in ns.
  e.active_time_ns = *duration * *active_avg / *active_max;
  e.utilization = e.active_time_ns > 0 ? e.exposed_time_ns / e.active_time_ns : 0.0;
  e.utilization_class = classify_l2(e.utilization, r);
  e.evaluated = true;
  return e;
}

}  // namespace atomq::model::detail
