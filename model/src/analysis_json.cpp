#include "atomq/model/analysis_json.hpp"
#include "atomq/common/json_fields.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atomq/model/launch_sites.hpp"
#include "atomq/model/wavefronts.hpp"

namespace atomq::model {

using nlohmann::json;

namespace {

// JSON has no NaN: a non-finite number is written as null.
json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json num(const std::optional<double>& v) { return v ? num(*v) : json(nullptr); }

json to_json(const Evidence& e) { return {{"name", e.name}, {"value", num(e.value)}, {"unit", e.unit}}; }

json to_json(const GainInterval& g) {
  if (!g.evaluated) return {{"evaluated", false}};
  return {{"evaluated", true},
          {"low", num(g.low)},
          {"high", num(g.high)},
          {"time_ns_at_low", num(g.time_ns_at_low)},
          {"time_ns_at_high", num(g.time_ns_at_high)},
          {"memory_floor_ns", num(g.memory_floor_ns)},
          {"nonatomic_floor_fraction", num(g.nonatomic_floor_fraction)},
          {"basis", g.basis}};
}

json to_json(const WhatIf& w) {
  json j = {{"id", enum_name(w.id)},
          {"change", w.change},
          {"interval", to_json(w.interval)},
          {"queue_length", num(w.queue_length)},
          {"active_lanes", num(w.active_lanes)},
          {"cas_share", num(w.cas_share)},
          {"wavefronts_per_instruction", num(w.wavefronts_per_instruction)},
          {"instructions", num(w.instructions)},
          {"service_cycles", num(w.service_cycles)},
          {"predicted_utilization", num(w.predicted_utilization)},
          {"predicted_cycles", num(w.predicted_cycles)},
          {"predicted_time_ns", num(w.predicted_time_ns)},
          {"speedup", num(w.speedup)},
          {"outside_calibrated_range", w.outside_calibrated_range},
          {"basis", w.basis}};
  if (w.least_change_time_ns) j["least_change_time_ns"] = num(w.least_change_time_ns);
  return j;
}

json to_json(const L2LawEvaluation& e) {
  if (!e.evaluated) return {{"evaluated", false}, {"reason", e.not_evaluated_reason}};
  return {{"evaluated", true},
          {"sectors_per_request", num(e.sectors_per_request)},
          {"chains", num(e.chains)},
          {"request_cycles", num(e.request_cycles)},
          {"sector_cycles", num(e.sector_cycles)},
          {"chain_cycles", num(e.chain_cycles)},
          {"exponent", num(e.exponent)},
          {"service_cycles", num(e.service_cycles)},
          {"utilization", num(e.utilization)}};
}

json to_json(const L2LatencyEvaluation& e) {
  if (!e.evaluated) return {{"evaluated", false}, {"reason", e.not_evaluated_reason}};
  return {{"evaluated", true},
          {"atom_instructions_per_sm", num(e.atom_instructions_per_sm)},
          {"requests_per_instruction", num(e.requests_per_instruction)},
          {"resident_warps_per_sm", num(e.resident_warps_per_sm)},
          {"in_flight_per_sm", num(e.in_flight_per_sm)},
          {"round_trip_ns", num(e.round_trip_ns)},
          {"round_trip_basis", e.round_trip_basis},
          {"exposed_time_ns", num(e.exposed_time_ns)},
          {"active_time_ns", num(e.active_time_ns)},
          {"utilization", num(e.utilization)},
          {"class", enum_name(e.utilization_class)}};
}

// The L2 queue: utilization of the hottest slice, why that service time, the op and where it
// came from, the busy counter's cross-check and the class.
json to_json(const DsmemUnit& d) {
  return {{"evaluated", d.evaluated},
          {"reason", d.not_evaluated_reason},
          {"requests", num(d.requests)},
          {"red_async_share", num(d.red_async_share)},
          {"requests_per_sm", num(d.requests_per_sm)},
          {"service_cycles", num(d.service_cycles)},
          {"busy_fraction", num(d.busy_fraction)},
          {"saturated_busy_fraction", num(d.saturated_busy_fraction)},
          {"request_utilization", num(d.request_utilization)},
          {"busy_utilization", num(d.busy_utilization)},
          {"utilization", num(d.utilization)},
          {"class", enum_name(d.utilization_class)},
          {"atomic_bound_time_ns", num(d.atomic_bound_time_ns)},
          {"basis", d.basis}};
}

json to_json(const L2Queue& q) {
  const L2Inputs& in = q.inputs;
  if (!q.evaluated) return {{"evaluated", false}, {"reason", q.not_evaluated_reason}};
  json candidate_ops = json::array();
  for (GlobalAtomicOp op : in.candidate_ops) candidate_ops.push_back(enum_name(op));
  return {{"evaluated", true},
          {"utilization", num(q.utilization)},
          {"class", enum_name(q.utilization_class)},
          {"service_cycles", num(q.service_cycles)},
          {"service_basis", enum_name(q.basis)},
          {"service_spread", enum_name(q.spread)},
          {"service_basis_text", q.basis_text},
          {"one_address_cycles", num(q.one_address_cycles)},
          {"op", enum_name(q.op)},
          {"op_origin", enum_name(q.op_origin)},
          {"op_reason", q.op_reason},
          {"requests", num(in.requests)},
          {"requests_hottest_slice", num(in.requests_hottest_slice)},
          {"hottest_slice_share", num(in.hottest_share)},
          {"slice_concentration", num(in.concentration)},
          {"slices", in.slices},
          {"cas_share", num(in.cas_share)},
          {"requests_per_instruction", num(in.requests_per_instruction)},
          {"sectors_per_request", num(in.sectors_per_request)},
          {"sectors_per_instruction", num(in.sectors_per_instruction)},
          {"elapsed_cycles", num(in.elapsed_cycles)},
          {"elapsed_source", in.elapsed_source},
          {"observed_cycles_per_request", num(in.observed_cycles_per_request())},
          {"busy_cycles", num(q.busy_cycles)},
          {"atomic_bound_time_ns", num(q.atomic_bound_time_ns)},
          {"busy_fraction", num(in.busy_fraction)},
          {"expected_busy_fraction", num(q.expected_busy_fraction)},
          {"busy_cross_check", q.busy_cross_check},
          {"request_utilization", num(q.request_utilization)},
          {"utilization_basis", enum_name(q.utilization_basis)},
          {"port_utilization", num(q.port_utilization)},
          {"request_port_occupancy", num(in.request_port_occupancy)},
          {"atomic_request_share", num(in.atomic_request_share)},
          {"law", to_json(q.law)},
          {"latency", to_json(q.latency)},
          {"bound_by_round_trips", q.bound_by_round_trips},
          {"bound_by_port", q.bound_by_port},
          {"addresses_of_spread", num(q.addresses_of_spread)},
          {"calibrated_busy_fraction", num(q.calibrated_busy_fraction)},
          {"cas_requests", num(in.cas_requests)},
          {"warp_instructions", num(in.warp_instructions)},
          {"duration_ns", num(in.duration_ns)},
          {"addresses", num(in.addresses)},
          {"candidate_ops", candidate_ops},
          {"inputs_op_origin", enum_name(in.op_origin)},
          {"inputs_op_reason", in.op_reason}};
}

json to_json(const Finding& f) {
  json evidence = json::array(), what_ifs = json::array();
  for (const Evidence& e : f.evidence) evidence.push_back(to_json(e));
  for (const WhatIf& w : f.what_ifs) what_ifs.push_back(to_json(w));
  return {{"kind", enum_name(f.kind)}, {"title", f.title},
          {"evidence", evidence},      {"details", f.details},
          {"recommendation", f.recommendation}, {"what_ifs", what_ifs}};
}

// The what-if every output recommends (KernelAnalysis::recommended), where it sits among the
// findings, and its expected gain as each output shows it (WhatIf::gain_low / gain_high); null
// when none is recommended.
json recommended_json(const KernelAnalysis& a) {
  const WhatIf* w = a.recommended_what_if();
  if (!w) return nullptr;
  return {{"id", enum_name(w->id)},
          {"change", w->change},
          {"finding", a.recommended->finding},
          {"what_if", a.recommended->what_if},
          {"gain_low", num(w->gain_low())},
          {"gain_high", num(w->gain_high())}};
}

}  // namespace

json to_json(const AtomicSite& s) {
  return {{"offset", s.offset},
          {"opcode", s.opcode},
          {"operands", s.operands},
          {"predicate", s.predicate},
          {"source", s.source},
          {"unit", enum_name(s.unit)},
          {"path", enum_name(s.path)},
          {"executions_per_launch", num(s.executions_per_launch)},
          {"lanes_per_instruction", num(s.lanes_per_instruction)},
          {"wavefronts_per_instruction", num(s.wavefronts_per_instruction)},
          {"ideal_wavefronts_per_instruction", num(s.ideal_wavefronts_per_instruction)},
          {"busy_share", num(s.busy_share)},
          {"warp_aggregated", s.warp_aggregated},
          {"cas", s.is_cas},
          {"in_loop", s.in_loop},
          {"attempts_per_update", num(s.attempts_per_update)},
          {"attempts_per_warp_entry", num(s.attempts_per_warp_entry)},
          {"loop_entry_offset", s.loop_entry_offset ? json(*s.loop_entry_offset) : json(nullptr)},
          {"loop_instruction_share", num(s.loop_instruction_share)},
          {"loop_entry_executions", num(s.loop_entry_executions)},
          {"loop_entry_lanes", num(s.loop_entry_lanes)},
          {"loop_instructions", num(s.loop_instructions)},
          {"kernel_instructions", num(s.kernel_instructions)}};
}

json time_json(const KernelTimePrediction& t) {
  return {{"atomic_ns", num(t.atomic_ns)},
          {"issue_ns", num(t.issue_ns)},
          {"memory_ns", num(t.memory_ns)},
          {"load_latency_ns", num(t.load_latency_ns)},
          {"load_latency_basis", t.load_latency_basis},
          {"predicted_ns", num(t.predicted_ns)},
          {"bound_by", t.bound_by},
          {"other_floor", t.other_floor},
          {"sm_active_balance", num(t.sm_active_balance)}};
}

json analysis_json(const KernelAnalysis& a) {
  const ModelInputs& in = a.inputs;
  json doc;
  doc["format"] = kAnalysisFormat;
  doc["version"] = kAnalysisVersion;
  doc["kernel"] = a.kernel_name;
  doc["chip"] = a.chip;
  doc["table_chip"] = a.table_chip;
  doc["evaluated"] = a.evaluated;
  doc["class"] = enum_name(a.utilization_class);
  doc["shared_unit_class"] = enum_name(a.shared_unit_class);
  doc["binding_unit"] = enum_name(a.binding_unit);
  doc["inputs"] = {
      {"instructions", num(in.instructions)},
      {"fetch_and_op", num(in.fetch_and_op)},
      {"cas", num(in.cas)},
      {"cas_share", num(in.cas_share)},
      {"wavefronts_per_instruction", num(in.wavefronts_per_instruction)},
      {"active_lanes", num(in.active_lanes)},
      {"active_lanes_origin", enum_name(in.active_lanes_origin)},
      {"active_lanes_basis", in.active_lanes_basis},
      {"queue_length_seed", num(in.queue_length_seed)},
      {"queue_length", num(a.queue_length)},
      {"queue_length_method", a.queue_length_method},
      {"active_cycles_sum", num(in.active_cycles_sum)},
      {"active_cycles_max", num(in.active_cycles_max)},
      {"duration_ns", num(in.duration_ns)},
      {"clock_mhz", num(in.clock_mhz)},
      {"clock_source", in.clock_source},
      {"op_variant", enum_name(in.variant)},
      {"op_variant_assumed", in.variant_assumed},
      {"instructions_busiest_sm", num(in.instructions_busiest_sm)},
      {"have_busiest_sm", in.have_busiest_sm},
      {"max_warps_per_sm", in.max_warps_per_sm},
      {"active_cycles_mean", num(in.active_cycles_mean)},
      {"sm_count", in.sm_count},
      {"dram_bytes_read", num(in.dram_bytes_read)},
      {"dram_peak_bytes_per_s", num(in.dram_peak_bytes_per_s)},
      {"useful_updates", num(in.useful_updates)}};
  json clamps = json::array();
  for (const ClampNote& c : a.utilization.service.clamped)
    clamps.push_back({{"axis", c.axis}, {"requested", num(c.requested)}, {"used", num(c.used)}});
  doc["utilization"] = {
      {"mean", num(a.utilization.mean)},
      {"max", num(a.utilization.max)},
      {"mean_if_n_halved", num(a.utilization.low)},
      {"mean_if_n_doubled", num(a.utilization.high)},
      {"service_cycles", num(a.utilization.service.cycles)},
      {"service_patterns", {a.utilization.service.pattern_below, a.utilization.service.pattern_above}},
      {"clamped", clamps},
      {"extrapolated_by_fit", a.utilization.service.extrapolated_by_fit},
      {"service_method", a.utilization.service.method},
      {"service_k", {num(a.utilization.service.k_below), num(a.utilization.service.k_above)}},
      {"busy_cycles_per_sm", num(a.utilization.busy_cycles_per_sm)},
      {"busy_cycles_busiest_sm", num(a.utilization.busy_cycles_busiest_sm)},
      {"atomic_bound_time_ns", num(a.utilization.atomic_bound_time_ns)}};
  doc["boundness"] = {{"throughput_per_sm_cycle", num(a.boundness.throughput_per_sm_cycle)},
                      {"response_cycles", num(a.boundness.response_cycles)},
                      {"unloaded_latency_cycles", num(a.boundness.unloaded_latency_cycles)},
                      {"queueing_delay_cycles", num(a.boundness.queueing_delay_cycles)},
                      {"latency_method", a.boundness.latency_method},
                      {"verdict", a.boundness.verdict},
                      {"cas_lane_ops_per_update", num(a.boundness.cas_lane_ops_per_update)}};
  doc["l2"] = to_json(a.l2);
  if (a.dsmem.evaluated || !a.dsmem.not_evaluated_reason.empty()) doc["dsmem"] = to_json(a.dsmem);  // DSMEM traffic
  const UnitsInSequence& seq = a.units_in_sequence;
  doc["units_in_sequence"] = {{"evaluated", seq.evaluated},
                              {"utilization", num(seq.utilization)},
                              {"class", enum_name(seq.utilization_class)},
                              {"atomic_bound_time_ns", num(seq.atomic_bound_time_ns)},
                              {"basis", seq.basis},
                              {"sets_class", seq.sets_class}};
  doc["time"] = time_json(a.time);
  json sites = json::array();
  for (const AtomicSite& s : a.sites) sites.push_back(to_json(s));
  doc["sites"] = sites;
  if (a.sites_basis.present) doc["sites_basis"] = sites_basis_json(a.sites_basis);  // measured or derived
  json findings = json::array();
  for (const Finding& f : a.findings) findings.push_back(to_json(f));
  doc["findings"] = findings;
  doc["recommended_what_if"] = recommended_json(a);
  doc["notes"] = a.notes;
  return doc;
}

std::string analysis_to_json(const KernelAnalysis& a) { return json_text(analysis_json(a), 2) + "\n"; }

std::string comparison_to_json(const KernelComparison& c) {
  json doc;
  doc["format"] = kComparisonFormat;
  doc["version"] = kAnalysisVersion;
  doc["kernel_a"] = c.kernel_a;
  doc["kernel_b"] = c.kernel_b;
  doc["class_a"] = enum_name(c.class_a);
  doc["class_b"] = enum_name(c.class_b);
  json rows = json::array();
  for (const ComparisonRow& r : c.rows)
    rows.push_back({{"quantity", r.quantity}, {"unit", r.unit}, {"a", num(r.a)},
                    {"b", num(r.b)}, {"ratio", num(r.ratio)}});
  doc["rows"] = rows;
  doc["more_atomic_bound"] = c.more_atomic_bound;
  doc["speedup_b_over_a"] = num(c.speedup_b_over_a);
  if (c.predicted_gain)
    doc["predicted_gain"] = {{"id", enum_name(c.predicted_gain->id)},
                             {"change", c.predicted_gain->change},
                             {"interval", to_json(c.predicted_gain->interval)},
                             {"measured", num(c.predicted_gain->measured)},
                             {"inside", c.predicted_gain->inside}};
  json findings = json::array();
  for (const Finding& f : c.findings) findings.push_back(to_json(f));
  doc["findings"] = findings;
  doc["summary"] = c.summary;
  return json_text(doc, 2) + "\n";
}

std::string fit_residuals_csv(const calibration::ServiceTable& table, const ServiceFit& fit) {
  std::ostringstream out;
  out << "variant,pattern,n,e,c,k,s_measured,s_fit,relative_residual\n";
  for (std::size_t i = 0; i < table.cells.size(); ++i) {
    const calibration::Cell& c = table.cells[i];
    const VariantFit* f = fit.for_variant(c.variant);
    const double k = expected_wavefronts(c.pattern, c.e, c.c, c.variant);
    out << enum_name(c.variant) << ',' << calibration::to_string(c.pattern) << ','
        << c.n << ',' << c.e << ',' << c.c << ',' << k << ',' << c.s << ','
        << (f ? f->predict(c.n, k) : std::nan("")) << ','
        << (i < fit.relative_residual.size() ? fit.relative_residual[i] : std::nan("")) << '\n';
  }
  out << "# variant,w0,w1,l0,l1,latency_floor,saturated_from_n,rms_rel,max_abs_rel\n";
  for (const VariantFit& f : fit.variants)
    out << "# " << enum_name(f.variant) << ',' << f.saturation.intercept << ','
        << f.saturation.slope << ',' << f.latency.intercept << ',' << f.latency.slope << ','
        << f.latency_floor << ',' << f.saturated_from_n << ',' << f.rms_relative_residual << ','
        << f.max_abs_relative_residual << '\n';
  return out.str();
}

}  // namespace atomq::model
