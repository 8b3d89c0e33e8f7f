// The stored analysis read back (analysis_from_json): the inverse of analysis_json, so `atomq
// report` shows what `atomq analyze` evaluated instead of evaluating it again. A number written
// as null (not finite) reads back as NaN, an optional one as absent; analysis_json of what is read
// is the JSON that was read (tests/unit/model/analysis_reader_test.cpp).
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "atomq/common/json_fields.hpp"
#include "atomq/model/analysis_json.hpp"

namespace atomq::model {

namespace {

using nlohmann::json;

class Reader {
 public:
  explicit Reader(const std::string& source) : f_(source) {}

  const json& obj(const json& o, const std::string& path, std::string_view key) const {
    return f_.object(f_.member(o, path, key), json_path(path, key));
  }
  double num(const json& o, const std::string& path, std::string_view key) const {
    const json& v = f_.member(o, path, key);
    return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : f_.number(v, json_path(path, key));
  }
  std::optional<double> opt(const json& o, const std::string& path, std::string_view key) const {
    const json* v = f_.optional_member(o, path, key);
    if (!v) return std::nullopt;
    return f_.number(*v, json_path(path, key));
  }
  bool flag(const json& o, const std::string& path, std::string_view key) const {
    const json& v = f_.member(o, path, key);
    if (!v.is_boolean()) f_.fail(json_path(path, key), "expected true or false");
    return v.get<bool>();
  }
  std::string str(const json& o, const std::string& path, std::string_view key) const {
    return f_.str(o, path, key);
  }
  long long integer(const json& o, const std::string& path, std::string_view key) const {
    return f_.integer(o, path, key);
  }
  template <typename E>
  E enumerated(const json& o, const std::string& path, std::string_view key) const {
    return f_.template enumerated<E>(o, path, key);
  }
  const json& list(const json& o, const std::string& path, std::string_view key) const {
    return f_.array(o, path, key, EmptyArray::kAllowed);
  }
  std::vector<std::string> strings(const json& o, const std::string& path, std::string_view key) const {
    std::vector<std::string> out;
    const json& a = list(o, path, key);
    for (std::size_t i = 0; i < a.size(); ++i) out.push_back(f_.str(a[i], json_path(json_path(path, key), i)));
    return out;
  }
  const JsonFields<AnalysisJsonError>& fields() const { return f_; }

 private:
  JsonFields<AnalysisJsonError> f_;
};

GainInterval read_interval(const Reader& r, const json& o, const std::string& p) {
  GainInterval g;
  g.evaluated = r.flag(o, p, "evaluated");
  if (!g.evaluated) return g;
  g.low = r.num(o, p, "low");
  g.high = r.num(o, p, "high");
  g.time_ns_at_low = r.opt(o, p, "time_ns_at_low");
  g.time_ns_at_high = r.opt(o, p, "time_ns_at_high");
  g.memory_floor_ns = r.opt(o, p, "memory_floor_ns");
  g.nonatomic_floor_fraction = r.num(o, p, "nonatomic_floor_fraction");
  g.basis = r.str(o, p, "basis");
  return g;
}

WhatIf read_what_if(const Reader& r, const json& o, const std::string& p) {
  WhatIf w;
  w.id = r.enumerated<WhatIfId>(o, p, "id");
  w.change = r.str(o, p, "change");
  w.interval = read_interval(r, r.obj(o, p, "interval"), json_path(p, "interval"));
  w.queue_length = r.num(o, p, "queue_length");
  w.active_lanes = r.num(o, p, "active_lanes");
  w.cas_share = r.num(o, p, "cas_share");
  w.wavefronts_per_instruction = r.num(o, p, "wavefronts_per_instruction");
  w.instructions = r.num(o, p, "instructions");
  w.service_cycles = r.num(o, p, "service_cycles");
  w.predicted_utilization = r.num(o, p, "predicted_utilization");
  w.predicted_cycles = r.num(o, p, "predicted_cycles");
  w.predicted_time_ns = r.opt(o, p, "predicted_time_ns");
  w.speedup = r.num(o, p, "speedup");
  w.outside_calibrated_range = r.flag(o, p, "outside_calibrated_range");
  w.basis = r.str(o, p, "basis");
  w.least_change_time_ns = r.opt(o, p, "least_change_time_ns");
  return w;
}

Finding read_finding(const Reader& r, const json& o, const std::string& p) {
  Finding f;
  f.kind = r.enumerated<FindingKind>(o, p, "kind");
  f.title = r.str(o, p, "title");
  const json& evidence = r.list(o, p, "evidence");
  for (std::size_t i = 0; i < evidence.size(); ++i) {
    const std::string e = json_path(json_path(p, "evidence"), i);
    f.evidence.push_back({r.str(evidence[i], e, "name"), r.num(evidence[i], e, "value"), r.str(evidence[i], e, "unit")});
  }
  f.details = r.strings(o, p, "details");
  f.recommendation = r.str(o, p, "recommendation");
  const json& what_ifs = r.list(o, p, "what_ifs");
  for (std::size_t i = 0; i < what_ifs.size(); ++i)
    f.what_ifs.push_back(read_what_if(r, what_ifs[i], json_path(json_path(p, "what_ifs"), i)));
  return f;
}

void read_inputs(const Reader& r, const json& o, const std::string& p, KernelAnalysis& a) {
  ModelInputs& in = a.inputs;
  in.instructions = r.num(o, p, "instructions");
  in.fetch_and_op = r.num(o, p, "fetch_and_op");
  in.cas = r.num(o, p, "cas");
  in.cas_share = r.num(o, p, "cas_share");
  in.wavefronts_per_instruction = r.num(o, p, "wavefronts_per_instruction");
  in.active_lanes = r.num(o, p, "active_lanes");
  in.active_lanes_origin = r.enumerated<Origin>(o, p, "active_lanes_origin");
  in.active_lanes_basis = r.str(o, p, "active_lanes_basis");
  in.queue_length_seed = r.num(o, p, "queue_length_seed");
  a.queue_length = r.num(o, p, "queue_length");
  a.queue_length_method = r.str(o, p, "queue_length_method");
  in.active_cycles_sum = r.num(o, p, "active_cycles_sum");
  in.active_cycles_max = r.num(o, p, "active_cycles_max");
  in.duration_ns = r.opt(o, p, "duration_ns");
  in.clock_mhz = r.opt(o, p, "clock_mhz");
  in.clock_source = r.str(o, p, "clock_source");
  in.variant = r.enumerated<calibration::OpVariant>(o, p, "op_variant");
  in.variant_assumed = r.flag(o, p, "op_variant_assumed");
  in.instructions_busiest_sm = r.num(o, p, "instructions_busiest_sm");
  in.have_busiest_sm = r.flag(o, p, "have_busiest_sm");
  in.max_warps_per_sm = static_cast<int>(r.integer(o, p, "max_warps_per_sm"));
  in.active_cycles_mean = r.num(o, p, "active_cycles_mean");
  in.sm_count = static_cast<int>(r.integer(o, p, "sm_count"));
  in.dram_bytes_read = r.opt(o, p, "dram_bytes_read");
  in.dram_peak_bytes_per_s = r.opt(o, p, "dram_peak_bytes_per_s");
  in.useful_updates = r.opt(o, p, "useful_updates");
}

void read_utilization(const Reader& r, const json& o, const std::string& p, Utilization& u) {
  u.mean = r.num(o, p, "mean");
  u.max = r.num(o, p, "max");
  u.low = r.num(o, p, "mean_if_n_halved");
  u.high = r.num(o, p, "mean_if_n_doubled");
  u.service.cycles = r.num(o, p, "service_cycles");
  const std::vector<std::string> patterns = r.strings(o, p, "service_patterns");
  if (patterns.size() != 2) r.fields().fail(json_path(p, "service_patterns"), "expected 2 patterns");
  u.service.pattern_below = patterns[0];
  u.service.pattern_above = patterns[1];
  const json& clamps = r.list(o, p, "clamped");
  for (std::size_t i = 0; i < clamps.size(); ++i) {
    const std::string c = json_path(json_path(p, "clamped"), i);
    u.service.clamped.push_back({r.str(clamps[i], c, "axis"), r.num(clamps[i], c, "requested"), r.num(clamps[i], c, "used")});
  }
  u.service.extrapolated_by_fit = r.flag(o, p, "extrapolated_by_fit");
  u.service.method = r.str(o, p, "service_method");
  const json& k = r.list(o, p, "service_k");
  if (k.size() != 2) r.fields().fail(json_path(p, "service_k"), "expected 2 numbers");
  u.service.k_below = k[0].is_null() ? std::nan("") : r.fields().number(k[0], json_path(p, "service_k"));
  u.service.k_above = k[1].is_null() ? std::nan("") : r.fields().number(k[1], json_path(p, "service_k"));
  u.busy_cycles_per_sm = r.num(o, p, "busy_cycles_per_sm");
  u.busy_cycles_busiest_sm = r.num(o, p, "busy_cycles_busiest_sm");
  u.atomic_bound_time_ns = r.opt(o, p, "atomic_bound_time_ns");
}

void read_boundness(const Reader& r, const json& o, const std::string& p, Boundness& b) {
  b.throughput_per_sm_cycle = r.num(o, p, "throughput_per_sm_cycle");
  b.response_cycles = r.num(o, p, "response_cycles");
  b.unloaded_latency_cycles = r.num(o, p, "unloaded_latency_cycles");
  b.queueing_delay_cycles = r.num(o, p, "queueing_delay_cycles");
  b.latency_method = r.str(o, p, "latency_method");
  b.verdict = r.str(o, p, "verdict");
  b.cas_lane_ops_per_update = r.opt(o, p, "cas_lane_ops_per_update");
}

L2LawEvaluation read_law(const Reader& r, const json& o, const std::string& p) {
  L2LawEvaluation e;
  e.evaluated = r.flag(o, p, "evaluated");
  if (!e.evaluated) {
    e.not_evaluated_reason = r.str(o, p, "reason");
    return e;
  }
  e.sectors_per_request = r.num(o, p, "sectors_per_request");
  e.chains = r.num(o, p, "chains");
  e.request_cycles = r.num(o, p, "request_cycles");
  e.sector_cycles = r.num(o, p, "sector_cycles");
  e.chain_cycles = r.num(o, p, "chain_cycles");
  e.exponent = r.num(o, p, "exponent");
  e.service_cycles = r.num(o, p, "service_cycles");
  e.utilization = r.num(o, p, "utilization");
  return e;
}

L2LatencyEvaluation read_latency(const Reader& r, const json& o, const std::string& p) {
  L2LatencyEvaluation e;
  e.evaluated = r.flag(o, p, "evaluated");
  if (!e.evaluated) {
    e.not_evaluated_reason = r.str(o, p, "reason");
    return e;
  }
  e.atom_instructions_per_sm = r.num(o, p, "atom_instructions_per_sm");
  e.requests_per_instruction = r.num(o, p, "requests_per_instruction");
  e.resident_warps_per_sm = r.num(o, p, "resident_warps_per_sm");
  e.in_flight_per_sm = r.num(o, p, "in_flight_per_sm");
  e.round_trip_ns = r.num(o, p, "round_trip_ns");
  e.round_trip_basis = r.str(o, p, "round_trip_basis");
  e.exposed_time_ns = r.num(o, p, "exposed_time_ns");
  e.active_time_ns = r.num(o, p, "active_time_ns");
  e.utilization = r.num(o, p, "utilization");
  e.utilization_class = r.enumerated<UtilizationClass>(o, p, "class");
  return e;
}

DsmemUnit read_dsmem(const Reader& r, const json& o, const std::string& p) {
  DsmemUnit d;
  d.evaluated = r.flag(o, p, "evaluated");
  d.not_evaluated_reason = r.str(o, p, "reason");
  d.requests = r.num(o, p, "requests");
  d.red_async_share = r.num(o, p, "red_async_share");
  d.requests_per_sm = r.num(o, p, "requests_per_sm");
  d.service_cycles = r.num(o, p, "service_cycles");
  d.busy_fraction = r.num(o, p, "busy_fraction");
  d.saturated_busy_fraction = r.num(o, p, "saturated_busy_fraction");
  d.request_utilization = r.num(o, p, "request_utilization");
  d.busy_utilization = r.num(o, p, "busy_utilization");
  d.utilization = r.num(o, p, "utilization");
  d.utilization_class = r.enumerated<UtilizationClass>(o, p, "class");
  d.atomic_bound_time_ns = r.opt(o, p, "atomic_bound_time_ns");
  d.basis = r.str(o, p, "basis");
  return d;
}

L2Queue read_l2(const Reader& r, const json& o, const std::string& p) {
  L2Queue q;
  q.evaluated = r.flag(o, p, "evaluated");
  if (!q.evaluated) {
    q.not_evaluated_reason = r.str(o, p, "reason");
    return q;
  }
  L2Inputs& in = q.inputs;
  q.utilization = r.num(o, p, "utilization");
  q.utilization_class = r.enumerated<UtilizationClass>(o, p, "class");
  q.service_cycles = r.num(o, p, "service_cycles");
  q.basis = r.enumerated<L2ServiceBasis>(o, p, "service_basis");
  q.spread = r.enumerated<calibration::AddressSpread>(o, p, "service_spread");
  q.basis_text = r.str(o, p, "service_basis_text");
  q.one_address_cycles = r.num(o, p, "one_address_cycles");
  q.op = r.enumerated<GlobalAtomicOp>(o, p, "op");
  q.op_origin = r.enumerated<Origin>(o, p, "op_origin");
  q.op_reason = r.str(o, p, "op_reason");
  in.requests = r.num(o, p, "requests");
  in.requests_hottest_slice = r.num(o, p, "requests_hottest_slice");
  in.hottest_share = r.num(o, p, "hottest_slice_share");
  in.concentration = r.num(o, p, "slice_concentration");
  in.slices = static_cast<int>(r.integer(o, p, "slices"));
  in.cas_share = r.num(o, p, "cas_share");
  in.requests_per_instruction = r.opt(o, p, "requests_per_instruction");
  in.sectors_per_request = r.opt(o, p, "sectors_per_request");
  in.sectors_per_instruction = r.opt(o, p, "sectors_per_instruction");
  in.elapsed_cycles = r.num(o, p, "elapsed_cycles");
  in.elapsed_source = r.str(o, p, "elapsed_source");
  q.busy_cycles = r.num(o, p, "busy_cycles");
  q.atomic_bound_time_ns = r.opt(o, p, "atomic_bound_time_ns");
  in.busy_fraction = r.opt(o, p, "busy_fraction");
  q.expected_busy_fraction = r.opt(o, p, "expected_busy_fraction");
  q.busy_cross_check = r.str(o, p, "busy_cross_check");
  q.request_utilization = r.num(o, p, "request_utilization");
  q.utilization_basis = r.enumerated<L2UtilizationBasis>(o, p, "utilization_basis");
  q.port_utilization = r.opt(o, p, "port_utilization");
  in.request_port_occupancy = r.opt(o, p, "request_port_occupancy");
  in.atomic_request_share = r.opt(o, p, "atomic_request_share");
  q.law = read_law(r, r.obj(o, p, "law"), json_path(p, "law"));
  q.latency = read_latency(r, r.obj(o, p, "latency"), json_path(p, "latency"));
  q.bound_by_round_trips = r.flag(o, p, "bound_by_round_trips");
  if (r.fields().optional_member(o, p, "bound_by_port"))  // documents before the saturated port lack it
    q.bound_by_port = r.flag(o, p, "bound_by_port");
  q.addresses_of_spread = r.num(o, p, "addresses_of_spread");
  q.calibrated_busy_fraction = r.num(o, p, "calibrated_busy_fraction");
  in.cas_requests = r.num(o, p, "cas_requests");
  in.warp_instructions = r.opt(o, p, "warp_instructions");
  in.duration_ns = r.opt(o, p, "duration_ns");
  in.addresses = r.opt(o, p, "addresses");
  const json& ops = r.list(o, p, "candidate_ops");
  for (std::size_t i = 0; i < ops.size(); ++i)
    in.candidate_ops.push_back(r.fields().enumerated<GlobalAtomicOp>(ops[i], json_path(json_path(p, "candidate_ops"), i)));
  in.op_origin = r.enumerated<Origin>(o, p, "inputs_op_origin");
  in.op_reason = r.str(o, p, "inputs_op_reason");
  return q;
}

UnitsInSequence read_units_in_sequence(const Reader& r, const json& o, const std::string& p) {
  UnitsInSequence s;
  s.evaluated = r.flag(o, p, "evaluated");
  s.utilization = r.num(o, p, "utilization");
  s.utilization_class = r.enumerated<UtilizationClass>(o, p, "class");
  s.atomic_bound_time_ns = r.opt(o, p, "atomic_bound_time_ns");
  s.basis = r.str(o, p, "basis");
  s.sets_class = r.flag(o, p, "sets_class");
  return s;
}

KernelTimePrediction read_time(const Reader& r, const json& o, const std::string& p) {
  KernelTimePrediction t;
  t.atomic_ns = r.opt(o, p, "atomic_ns");
  t.issue_ns = r.opt(o, p, "issue_ns");
  t.memory_ns = r.opt(o, p, "memory_ns");
  t.load_latency_ns = r.opt(o, p, "load_latency_ns");  // documents before the load floor lack it
  t.predicted_ns = r.opt(o, p, "predicted_ns");
  t.bound_by = r.str(o, p, "bound_by");
  t.other_floor = r.str(o, p, "other_floor");
  if (r.fields().optional_member(o, p, "load_latency_basis"))  // documents before the load floor lack it
    t.load_latency_basis = r.str(o, p, "load_latency_basis");
  t.sm_active_balance = r.num(o, p, "sm_active_balance");
  return t;
}

AtomicSite read_site(const Reader& r, const json& o, const std::string& p) {
  AtomicSite s;
  s.offset = r.integer(o, p, "offset");
  s.opcode = r.str(o, p, "opcode");
  s.operands = r.str(o, p, "operands");
  s.predicate = r.str(o, p, "predicate");
  s.source = r.str(o, p, "source");
  s.unit = r.enumerated<SiteUnit>(o, p, "unit");
  // Analyses stored before sites named their path: the opcode's.
  if (r.fields().optional_member(o, p, "path"))
    s.path = r.enumerated<AtomicPath>(o, p, "path");
  else
    s.path = sass_atomic_path(s.opcode).value_or(s.unit == SiteUnit::kShared ? AtomicPath::kSharedUnit : AtomicPath::kL2);
  s.executions_per_launch = r.num(o, p, "executions_per_launch");
  s.lanes_per_instruction = r.num(o, p, "lanes_per_instruction");
  s.wavefronts_per_instruction = r.num(o, p, "wavefronts_per_instruction");
  s.ideal_wavefronts_per_instruction = r.num(o, p, "ideal_wavefronts_per_instruction");
  s.busy_share = r.num(o, p, "busy_share");
  s.warp_aggregated = r.flag(o, p, "warp_aggregated");
  s.is_cas = r.flag(o, p, "cas");
  s.in_loop = r.flag(o, p, "in_loop");
  s.attempts_per_update = r.opt(o, p, "attempts_per_update");
  s.attempts_per_warp_entry = r.opt(o, p, "attempts_per_warp_entry");
  if (const json* entry = r.fields().optional_member(o, p, "loop_entry_offset"))
    s.loop_entry_offset = r.fields().integer(*entry, json_path(p, "loop_entry_offset"));
  s.loop_instruction_share = r.opt(o, p, "loop_instruction_share");
  s.loop_entry_executions = r.num(o, p, "loop_entry_executions");
  s.loop_entry_lanes = r.num(o, p, "loop_entry_lanes");
  s.loop_instructions = r.num(o, p, "loop_instructions");
  s.kernel_instructions = r.num(o, p, "kernel_instructions");
  return s;
}

SitesBasis read_sites_basis(const Reader& r, const json& o, const std::string& p) {
  SitesBasis b;
  b.present = true;
  b.basis = r.enumerated<InstructionBasis>(o, p, "basis");
  b.measured_first_launch = r.integer(o, p, "measured_first_launch");
  b.measured_launches = r.integer(o, p, "measured_launches");
  b.derived = r.flag(o, p, "derived");
  b.text = r.str(o, p, "text");
  if (const json* launch = r.fields().optional_member(o, p, "launch"))
    b.launch = r.fields().integer(*launch, json_path(p, "launch"));
  if (b.derived) {
    b.entries_basis = r.str(o, p, "entries_basis");
    b.entry_scale = r.num(o, p, "entry_scale");
  }
  return b;
}

void read_recommended(const Reader& r, const json& doc, KernelAnalysis& a) {
  const json* rec = r.fields().optional_member(doc, "", "recommended_what_if");
  if (!rec) return;
  const std::string p = "recommended_what_if";
  r.fields().object(*rec, p);
  WhatIfRef ref;
  ref.finding = static_cast<std::size_t>(r.fields().integer(*rec, p, "finding", 0, 1 << 20));
  ref.what_if = static_cast<std::size_t>(r.fields().integer(*rec, p, "what_if", 0, 1 << 20));
  a.recommended = ref;
  if (!a.recommended_what_if()) r.fields().fail(p, "names no what-if of the findings");
}

}  // namespace

KernelAnalysis analysis_from_json(const nlohmann::json& doc, const std::string& source) {
  const Reader r(source);
  r.fields().object(doc, "");
  r.fields().require_format(doc, kAnalysisFormat, kAnalysisVersion);
  KernelAnalysis a;
  a.kernel_name = r.str(doc, "", "kernel");
  a.chip = r.str(doc, "", "chip");
  a.table_chip = r.str(doc, "", "table_chip");
  a.evaluated = r.flag(doc, "", "evaluated");
  a.utilization_class = r.enumerated<UtilizationClass>(doc, "", "class");
  a.shared_unit_class = r.enumerated<UtilizationClass>(doc, "", "shared_unit_class");
  a.binding_unit = r.enumerated<BindingUnit>(doc, "", "binding_unit");
  read_inputs(r, r.obj(doc, "", "inputs"), "inputs", a);
  read_utilization(r, r.obj(doc, "", "utilization"), "utilization", a.utilization);
  read_boundness(r, r.obj(doc, "", "boundness"), "boundness", a.boundness);
  a.l2 = read_l2(r, r.obj(doc, "", "l2"), "l2");
  if (const json* dsmem = r.fields().optional_member(doc, "", "dsmem"))
    a.dsmem = read_dsmem(r, r.fields().object(*dsmem, "dsmem"), "dsmem");
  a.units_in_sequence = read_units_in_sequence(r, r.obj(doc, "", "units_in_sequence"), "units_in_sequence");
  a.time = read_time(r, r.obj(doc, "", "time"), "time");
  const json& sites = r.list(doc, "", "sites");
  for (std::size_t i = 0; i < sites.size(); ++i) a.sites.push_back(read_site(r, sites[i], json_path("sites", i)));
  if (const json* basis = r.fields().optional_member(doc, "", "sites_basis"))
    a.sites_basis = read_sites_basis(r, r.fields().object(*basis, "sites_basis"), "sites_basis");
  const json& findings = r.list(doc, "", "findings");
  for (std::size_t i = 0; i < findings.size(); ++i)
    a.findings.push_back(read_finding(r, findings[i], json_path("findings", i)));
  read_recommended(r, doc, a);
  a.notes = r.strings(doc, "", "notes");
  return a;
}

}  // namespace atomq::model
