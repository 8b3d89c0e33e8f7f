// The L2 queue of one kernel: which calibrated service time fits the hottest slice (one hot
// address, a hot slice, or spread requests), the op when the SASS does not say, and the
// utilization of that slice with the busy counter as a cross-check (docs/model.md).
#include "atomq/model/l2_queue.hpp"

#include "atomq/model/l2_law.hpp"
#include "atomq/model/metric_names.hpp"
#include "l2_latency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <vector>

namespace atomq::model {

namespace {

using calibration::L2Cell;
using calibration::L2Section;

std::string percent(double u) { return fmt::format("{:.0f}%", 100.0 * u); }

// The saturated cell of (op, spread), when it has a usable service time.
const L2Cell* saturated_cell(const L2Section& s, GlobalAtomicOp op, AddressSpread spread) {
  const L2Cell* cell = s.saturated(op, spread);
  return cell && cell->cycles_per_request > 0 ? cell : nullptr;
}

struct OpChoice {
  const L2Cell* cell = nullptr;
  std::string reason;  // empty when the op was not chosen among several
};

// Among the candidate ops the table calibrates for this spread: the slowest whose service time
// the observed rate allows (S <= observed x (1 + tolerance)), so U stays an honest upper bound;
// the fastest when none is allowed.
OpChoice choose_op(const L2Inputs& in, const L2Section& s, AddressSpread spread, const Rules& r) {
  OpChoice choice;
  const double observed = in.observed_cycles_per_request();
  const L2Cell* fastest = nullptr;
  int calibrated = 0;
  for (GlobalAtomicOp op : in.candidate_ops) {
    const L2Cell* cell = saturated_cell(s, op, spread);
    if (!cell) continue;
    ++calibrated;
    if (!fastest || cell->cycles_per_request < fastest->cycles_per_request) fastest = cell;
    const bool allowed = observed <= 0 || cell->cycles_per_request <= observed * (1 + r.l2_rate_tolerance);
    if (allowed && (!choice.cell || cell->cycles_per_request > choice.cell->cycles_per_request))
      choice.cell = cell;
  }
  if (!choice.cell) choice.cell = fastest;
  if (calibrated > 1 && choice.cell)
    choice.reason = fmt::format(
        "{} chosen by the observed rate ({:.2f} L2 cycles per request at the hottest slice): the "
        "slowest candidate that rate allows",
        enum_name(choice.cell->op), observed);
  return choice;
}

// What the spread is matched on: sectors per request where the kernel and the op's cells have
// them (a request's work: one sector for a lane's own word, four for a line of 4-byte words), else
// requests per warp instruction, which do not tell six one-sector requests of an instruction
// from six whole-line ones.
struct SpreadMeasure {
  bool by_sectors = false;
  double kernel = 0;
  double of(const L2Cell& c) const { return by_sectors ? c.sectors_per_request : c.requests_per_instruction; }
  const char* name() const { return by_sectors ? "sectors per request" : "requests per instruction"; }
};

SpreadMeasure spread_measure(const L2Inputs& in, const L2Section& s, GlobalAtomicOp op) {
  bool cells_have_sectors = true;
  for (AddressSpread spread : {AddressSpread::kOneLine, AddressSpread::kManyLines, AddressSpread::kDistinct})
    if (const L2Cell* cell = saturated_cell(s, op, spread); cell && !(cell->sectors_per_request > 0))
      cells_have_sectors = false;
  if (in.sectors_per_request && *in.sectors_per_request > 0 && cells_have_sectors)
    return {true, *in.sectors_per_request};
  return {false, in.requests_per_instruction.value_or(0)};
}

// Not one hot address: the calibrated spread nearest the kernel's in spread_measure (per-lane
// requests cost differently from whole-line ones), one_line first for uneven slices on a near
// tie; without either measure, one_line when uneven, else many_lines. With
// `rate_allowed_only`, only spreads whose service time the observed rate allows
// (S <= observed x (1 + tolerance), as for the op) take part, while any does.
AddressSpread choose_spread(const L2Inputs& in, const L2Section& s, GlobalAtomicOp op, bool uneven, const Rules& r,
                            bool rate_allowed_only) {
  const AddressSpread fallback = uneven ? AddressSpread::kOneLine : AddressSpread::kManyLines;
  const SpreadMeasure measure = spread_measure(in, s, op);
  if (!(measure.kernel > 0)) return fallback;
  const std::vector<AddressSpread> order =
      uneven ? std::vector<AddressSpread>{AddressSpread::kOneLine, AddressSpread::kManyLines, AddressSpread::kDistinct}
             : std::vector<AddressSpread>{AddressSpread::kManyLines, AddressSpread::kDistinct, AddressSpread::kOneLine};
  const double observed = in.observed_cycles_per_request();
  auto usable_cell = [&](AddressSpread spread, bool allowed_only) -> const L2Cell* {
    const L2Cell* cell = saturated_cell(s, op, spread);
    if (!cell || !(measure.of(*cell) > 0)) return nullptr;
    if (allowed_only && observed > 0 && cell->cycles_per_request > observed * (1 + r.l2_rate_tolerance)) return nullptr;
    return cell;
  };
  bool any_allowed = false;
  for (AddressSpread spread : order) any_allowed |= usable_cell(spread, true) != nullptr;
  const bool allowed_only = rate_allowed_only && any_allowed;
  constexpr double kTie = 0.1;  // log units: within ~10% counts as equally near
  AddressSpread best = fallback;
  double best_distance = INFINITY;
  for (AddressSpread spread : order) {
    const L2Cell* cell = usable_cell(spread, allowed_only);
    if (!cell) continue;
    const double distance = std::fabs(std::log(measure.of(*cell) / measure.kernel));
    if (distance < best_distance - kTie) best_distance = distance, best = spread;
  }
  return best;
}

// The cell's S is beyond the observed rate (requests x S more than the kernel's time) and the
// busy counter does not say the slice was saturated (below the cell's busy share, or absent):
// the cell does not describe these requests (one-lane requests of a warp-aggregated atomic
// resemble whole-line ones in their count per instruction). Where the busy counter does
// confirm saturation, apply_overstated_requests keeps the cell and sets U 100%.
bool overstated_unconfirmed(const L2Inputs& in, const L2Cell& cell, const Rules& r) {
  const double observed = in.observed_cycles_per_request();
  if (observed <= 0 || cell.cycles_per_request <= observed * (1 + r.l2_rate_tolerance)) return false;
  return !in.busy_fraction || *in.busy_fraction < cell.busy_fraction;
}

// One hot address: the hottest slice holds most requests and retires them no faster than the
// calibrated same-address rate of the op.
bool hot_address(const L2Inputs& in, const L2Section& s, const Rules& r, OpChoice& choice) {
  if (!r.uses(ModelTerm::kL2HotAddress) || in.hottest_share < r.l2_hot_address_min_share) return false;
  choice = choose_op(in, s, AddressSpread::kOneAddress, r);
  return choice.cell &&
         in.observed_cycles_per_request() >= choice.cell->cycles_per_request * (1 - r.l2_rate_tolerance);
}

std::string basis_in_words(const L2Queue& q) {
  const L2Inputs& in = q.inputs;
  const std::string op = enum_name(q.op);
  switch (q.basis) {
    case L2ServiceBasis::kHotAddress:
      return fmt::format("one hot address: the hottest slice serves {} of the requests at one per "
                         "{:.2f} L2 cycles, no faster than the calibrated same-address {:.2f} "
                         "cycles of {}",
                         percent(in.hottest_share), in.observed_cycles_per_request(),
                         q.service_cycles, op);
    case L2ServiceBasis::kHotSlice:
      return fmt::format("few addresses on uneven slices: the hottest slice serves {:.1f}x the mean "
                         "slice's requests ({} of all) at one per {:.2f} L2 cycles; the "
                         "calibrated {} service time of {}, {:.2f} cycles",
                         in.concentration, percent(in.hottest_share),
                         in.observed_cycles_per_request(), enum_name(q.spread), op, q.service_cycles);
    default:
      return fmt::format("spread over {} slices (hottest {:.1f}x the mean): the calibrated {} "
                         "service time of {}, {:.2f} cycles",
                         in.slices, in.concentration, enum_name(q.spread), op, q.service_cycles);
  }
}

// The busy counter under-reads same-address serialization, so it is compared with what the
// calibrated saturated cell read at this utilization, not used as U.
void cross_check_busy(L2Queue& q, const L2Cell& cell, const Rules& r) {
  if (!q.inputs.busy_fraction) {
    q.busy_cross_check = "no busy counter in the profile";
    return;
  }
  q.calibrated_busy_fraction = cell.busy_fraction;
  q.expected_busy_fraction = std::min(1.0, q.utilization) * cell.busy_fraction;
  const double observed = *q.inputs.busy_fraction;
  const bool agrees = std::fabs(observed - *q.expected_busy_fraction) <= r.l2_busy_cross_check_tolerance;
  q.busy_cross_check = fmt::format(
      "busy counter {} of elapsed; the calibrated {} cell reads {} when saturated, so U {} "
      "predicts {}: {}",
      percent(observed), enum_name(cell.spread), percent(cell.busy_fraction),
      percent(q.utilization), percent(*q.expected_busy_fraction),
      agrees ? "consistent" : "they differ (treat U as approximate)");
}

// Same-address serialization: updates of one word cannot be pipelined (each waits for the
// previous one's result), so a slice serving hot words keeps its atomic input active longer per
// request than the calibrated cell of its spread did. When the busy counter reads more than the
// cell's busy share at U (beyond the cross-check tolerance), the slice's occupancy comes from
// the busy counter, at most 1 (a share of the kernel's time), and U is that.
// The busy cycles per request (busy x elapsed / requests) place the slice's load between the
// spread cell's and the op's one-address cell's (the one-address cell is busy a smaller share of
// a longer service time): the share f of requests that serialize on one address follows, so the
// slice's service time is f x S(one address) + (1 - f) x S(cell) and U is that over the observed
// cycles per request; it is used where the one-address cell reads a smaller busy share than the
// spread cell (the float adds on the H200: 33% against 63%), so that busy / the cell's share is
// a lower bound. Otherwise (the integer ops: one address 80% busy) U is busy / the cell's share,
// which the recorded integer kernels' fixes bear out (docs/model.md).
void apply_serialization(L2Queue& q, const L2Cell& cell, const L2Cell* one_address, const Rules& r) {
  const auto& busy = q.inputs.busy_fraction;
  if (!r.uses(ModelTerm::kL2BusySerialization) || !busy || !q.expected_busy_fraction ||
      q.calibrated_busy_fraction <= 0)
    return;
  if (*busy - *q.expected_busy_fraction <= r.l2_busy_cross_check_tolerance) return;
  const double observed = q.inputs.observed_cycles_per_request();
  const double busy_per_request = *busy * observed;
  const double spread_busy = cell.cycles_per_request * cell.busy_fraction;
  const double one_busy = one_address ? one_address->cycles_per_request * one_address->busy_fraction : 0.0;
  double occupancy = std::min(1.0, *busy / q.calibrated_busy_fraction);
  std::string how = fmt::format("U is the busy counter over the cell's busy share ({}), at most 100%",
                                percent(q.calibrated_busy_fraction));
  if (one_address && one_address != &cell && observed > 0 && one_busy > spread_busy &&
      one_address->busy_fraction < cell.busy_fraction) {
    const double f = std::clamp((busy_per_request - spread_busy) / (one_busy - spread_busy), 0.0, 1.0);
    const double service = f * one_address->cycles_per_request + (1 - f) * cell.cycles_per_request;
    occupancy = std::max(occupancy, std::min(1.0, service / observed));
    how = fmt::format(
        "busy {:.2f} L2 cycles per request against the {} cell's {:.2f} and the one_address cell's {:.2f}: {} of "
        "the slice's requests serialize on one address (clamped to 0-100%), a service time of {:.2f} cycles per "
        "request against the observed {:.2f}, so U {} (at most 100%)",
        busy_per_request, enum_name(cell.spread), spread_busy, one_busy, percent(f), service, observed,
        percent(occupancy));
  }
  if (occupancy <= q.utilization) return;
  q.utilization = occupancy;
  q.busy_cycles = occupancy * q.inputs.elapsed_cycles;
  q.utilization_basis = L2UtilizationBasis::kBusyCounter;
  q.basis_text += fmt::format(
      "; the slice's atomic input was active {} of the kernel, above the {} the calibrated cell "
      "shows at the requests' U {}: same-address updates serialized on their latency; {}",
      percent(*busy), percent(*q.expected_busy_fraction), percent(q.request_utilization), how);
}

// Requests x S beyond the kernel's time (past the rate tolerance) is no occupancy: the calibrated
// S overstates these requests (one-lane CAS probes against cells measured with about ten lanes
// per request). Where the busy counter confirms the slice saturated (at least the cell's busy
// share), U is 100%; where it does not, the two disagree and U stays the requests' figure, whose
// intervals then start at no gain (gain_interval.cpp).
void apply_overstated_requests(L2Queue& q, const Rules& r) {
  const auto& busy = q.inputs.busy_fraction;
  if (!r.uses(ModelTerm::kL2OverstatedSaturation) || !busy || q.calibrated_busy_fraction <= 0 ||
      q.utilization_basis != L2UtilizationBasis::kRequests || q.request_utilization <= 1.0 + r.l2_rate_tolerance || *busy < q.calibrated_busy_fraction)
    return;
  q.utilization = 1.0;
  q.busy_cycles = q.utilization * q.inputs.elapsed_cycles;
  q.utilization_basis = L2UtilizationBasis::kBusyCounter;
  q.basis_text += fmt::format(
      "; requests x S give U {}, more than the kernel's time: the calibrated S overstates these requests, and the "
      "slice's busy counter ({}) at or above the cell's busy share when saturated ({}) says it was: U 100%",
      percent(q.request_utilization), percent(*busy), percent(q.calibrated_busy_fraction));
}

// The SMs' request port (docs/model.md, "The request port"). Every global request leaves its SM
// through the L1's port to the crossbar; when the L2 side does not take a request the port holds
// it (its stalled cycles). The port's handing and holding time over the SMs' time, times the
// atomics' share of the requests, is the time the atomics held the SMs' path to the L2. Where it
// exceeds the slice's U the port binds: same-word lanes of an instruction travel as separate
// requests, and on a few lines they back up at the L2's input while its atomic units read a third
// busy (the word-lane sweep, docs/calibration.md). Each request then costs the port's time over
// the requests, which the what-ifs scale with the requests they remove.
void apply_request_port(L2Queue& q, const Rules& r) {
  const L2Inputs& in = q.inputs;
  if (!r.uses(ModelTerm::kRequestPort) || !in.request_port_occupancy || !in.atomic_request_share ||
      in.requests_hottest_slice <= 0 || in.elapsed_cycles <= 0)
    return;
  const double port = *in.request_port_occupancy * *in.atomic_request_share;
  q.port_utilization = port;
  if (port <= q.utilization) return;
  const double slice = q.utilization;
  q.utilization = port;
  q.busy_cycles = port * in.elapsed_cycles;
  q.service_cycles = q.busy_cycles / in.requests_hottest_slice;
  q.utilization_basis = L2UtilizationBasis::kRequestPort;
  q.basis_text += fmt::format(
      "; the SMs' request port to the L2 was handing or holding requests {} of their time and the atomics "
      "sent {} of those requests: they held the path to the L2 {} of the time, more than the slice's {}, so U "
      "is that and a request costs {:.2f} L2 cycles of the hottest slice's count (the port's time over its "
      "requests)",
      percent(*in.request_port_occupancy), percent(*in.atomic_request_share), percent(port), percent(slice),
      q.service_cycles);
}

// A saturated port the atomics share with loads and stores binds the kernel through them: it hands
// over one request at a time, so without the atomics' share s of its requests a port-bound kernel
// would take (1 - s) of its time. Where the port is occupied at least the potential mark and that
// gain reaches Rules::atomic_bound_gain, the class is the port's occupancy's (coo_spmv's gathers
// and row updates: port 84%, atomics 58% of the requests, ablation 2.11x against 2.4x).
void classify_saturated_port(L2Queue& q, const Rules& r) {
  const L2Inputs& in = q.inputs;
  if (!q.port_utilization || !in.request_port_occupancy || !in.atomic_request_share) return;
  const double occupancy = *in.request_port_occupancy, share = *in.atomic_request_share;
  const double gain_without = share < 1.0 ? 1.0 / (1.0 - share) : std::numeric_limits<double>::infinity();
  const UtilizationClass port_class = classify_l2(occupancy, r);
  if (gain_without < r.atomic_bound_gain || !more_bound(port_class, q.utilization_class)) return;
  q.utilization_class = port_class;
  q.bound_by_port = true;
  q.basis_text += fmt::format(
      "; the port was occupied {} of the time, past the potential mark, and the atomics sent {} of its "
      "requests: without them a port-bound kernel takes {} of its time ({:.2f}x faster), so the port binds "
      "it through them (U stays their own {})",
      percent(occupancy), percent(share), percent(1.0 - share), gain_without, percent(q.utilization));
}

// The law's S and U for the queue's op at the kernel's sectors per request and the hot-line
// chains its hottest share means (docs/model.md, "The L2 law").
L2LawEvaluation evaluate_law(const L2Queue& q, const L2Section& s) {
  L2LawEvaluation e;
  const std::shared_ptr<const L2Law> fitted = l2_law_of(s);
  const L2Law& law = *fitted;
  const L2Inputs& in = q.inputs;
  if (!law.fitted) {
    e.not_evaluated_reason = law.not_fitted_reason;
    return e;
  }
  if (!(in.sectors_per_request && *in.sectors_per_request > 0)) {
    e.not_evaluated_reason = fmt::format("missing {} / {}", metric::kL2AtomSectors, metric::kL2RedSectors);
    return e;
  }
  const L2LawOpTerms* terms = law.terms(q.op);
  if (!terms) {
    e.not_evaluated_reason = "the law has no terms for " + enum_name(q.op);
    return e;
  }
  e.sectors_per_request = *in.sectors_per_request;
  e.chains = law.chains_at_share(in.hottest_share);
  e.request_cycles = terms->request_cycles;
  e.sector_cycles = terms->sector_cycles;
  e.chain_cycles = terms->chain_cycles;
  e.exponent = law.exponent;
  e.service_cycles = *law.service_cycles(q.op, e.sectors_per_request, e.chains);
  e.utilization = in.elapsed_cycles > 0 ? in.requests_hottest_slice * e.service_cycles / in.elapsed_cycles : 0.0;
  e.evaluated = true;
  return e;
}

void evaluate(L2Queue& q, const KernelProfile& profile, const L2Section& s, const Rules& r) {
  std::string note;
  auto inputs = derive_l2_inputs(profile, s, note);
  if (!inputs) {
    q.not_evaluated_reason = note;
    return;
  }
  q.inputs = *inputs;
  const L2Inputs& in = q.inputs;
  OpChoice choice;
  std::string spread_note;  // why the spread is not the nearest in its measure
  if (hot_address(in, s, r, choice)) {
    q.basis = L2ServiceBasis::kHotAddress;
    q.spread = AddressSpread::kOneAddress;
  } else {
    const bool uneven = in.concentration >= r.l2_hot_slice_min_concentration;
    q.basis = uneven ? L2ServiceBasis::kHotSlice : L2ServiceBasis::kSpread;
    const OpChoice first = choose_op(in, s, AddressSpread::kManyLines, r);
    const GlobalAtomicOp op_for_spread = first.cell ? first.cell->op : in.candidate_ops.front();
    q.spread = choose_spread(in, s, op_for_spread, uneven, r, false);
    choice = choose_op(in, s, q.spread, r);
    if (r.uses(ModelTerm::kL2SpreadRechoice) && choice.cell && overstated_unconfirmed(in, *choice.cell, r)) {
      const AddressSpread allowed = choose_spread(in, s, choice.cell->op, uneven, r, true);
      if (allowed != q.spread) {
        spread_note = fmt::format(
            "; the nearest spread in {}, {} ({:.2f} cycles), is slower than the slice's "
            "observed {:.2f} cycles per request and its busy counter does not show it saturated: the nearest "
            "spread whose service time that rate allows",
            spread_measure(in, s, choice.cell->op).name(), enum_name(q.spread), choice.cell->cycles_per_request,
            in.observed_cycles_per_request());
        q.spread = allowed;
        choice = choose_op(in, s, q.spread, r);
      }
    }
  }
  if (!choice.cell) {
    q.not_evaluated_reason = fmt::format("L2 queue not evaluated: the table's L2 section has no "
                                         "{} cell for the kernel's op", enum_name(q.spread));
    return;
  }
  q.op = choice.cell->op;
  q.op_origin = in.op_origin;
  q.op_reason = in.op_reason + (choice.reason.empty() ? "" : "; " + choice.reason);
  q.service_cycles = choice.cell->cycles_per_request;
  q.addresses_of_spread = choice.cell->addresses;
  const L2Cell* one_address = saturated_cell(s, q.op, AddressSpread::kOneAddress);
  if (one_address) q.one_address_cycles = one_address->cycles_per_request;
  q.busy_cycles = in.requests_hottest_slice * q.service_cycles;
  q.utilization = in.elapsed_cycles > 0 ? q.busy_cycles / in.elapsed_cycles : 0.0;
  q.request_utilization = q.utilization;
  q.basis_text = in.requests > 0 ? basis_in_words(q) + spread_note : "no global atomics reached L2";
  if (const SpreadMeasure m = spread_measure(in, s, q.op); in.requests > 0 && m.by_sectors && q.basis != L2ServiceBasis::kHotAddress)
    q.basis_text += fmt::format(" (spread matched on sectors per request: {:.2f}, the cell's {:.2f})", m.kernel,
                                choice.cell->sectors_per_request);
  cross_check_busy(q, *choice.cell, r);
  apply_serialization(q, *choice.cell, one_address, r);
  apply_overstated_requests(q, r);
  apply_request_port(q, r);
  if (in.duration_ns)
    q.atomic_bound_time_ns = *in.duration_ns * q.utilization;
  else if (s.l2_clock_mhz > 0)
    q.atomic_bound_time_ns = q.busy_cycles / s.l2_clock_mhz * 1000.0;
  q.utilization_class = classify_l2(q.utilization, r);
  if (r.uses(ModelTerm::kRequestPort)) classify_saturated_port(q, r);
  q.law = evaluate_law(q, s);
  q.latency = detail::evaluate_l2_latency(profile, q.op, *l2_law_of(s), r);
  if (r.uses(ModelTerm::kL2RoundTrips) && q.latency.evaluated &&
      more_bound(q.latency.utilization_class, q.utilization_class)) {
    // The warps wait on round trips the slice is not saturated by: the kernel's atomic time is theirs.
    q.utilization_class = q.latency.utilization_class;
    q.bound_by_round_trips = true;
    if (in.duration_ns)
      q.atomic_bound_time_ns = std::max(q.atomic_bound_time_ns.value_or(0.0),
                                        *in.duration_ns * std::min(1.0, q.latency.utilization));
  }
  q.evaluated = true;
}

}  // namespace

L2Queue evaluate_l2_queue(const KernelProfile& profile, const L2Section* section,
                          const Rules& rules) noexcept {
  L2Queue q;
  try {
    if (!section || section->cells.empty()) {
      q.not_evaluated_reason = "L2 queue not evaluated: the calibration table has no L2 section";
      return q;
    }
    evaluate(q, profile, *section, rules);
  } catch (const std::exception& e) {
    q = L2Queue{};
    q.not_evaluated_reason = std::string("L2 queue not evaluated: internal error: ") + e.what();
  }
  return q;
}

}  // namespace atomq::model
