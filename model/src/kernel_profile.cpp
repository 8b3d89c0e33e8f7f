#include "atomq/model/kernel_profile.hpp"

#include <limits>
#include <nlohmann/json.hpp>

#include "atomq/common/json_fields.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::model {

namespace {

using nlohmann::json;
using Fields = JsonFields<ProfileError>;

// CUDA's limits bound each dimension, so no value narrows and the products fit 64 bits.
template <typename T, std::size_t N>
std::array<T, N> dims(const Fields& r, const json& obj, const std::string& path, const char* key,
                      const std::array<long long, N>& max) {
  const std::string field = json_path(path, key);
  const json& v = r.member(obj, path, key);
  if (!v.is_array() || v.size() != N) r.fail(field, "expected an array of " + std::to_string(N));
  std::array<T, N> out{};
  for (std::size_t i = 0; i < N; ++i)
    out[i] = static_cast<T>(r.integer(v[i], json_path(field, i), 1, max[i]));
  return out;
}

constexpr long long kIntMax = std::numeric_limits<int>::max();

LaunchConfig read_launch(const Fields& r, const json& kernel) {
  const std::string path = "kernel.launch";
  const json& launch = r.member(kernel, "kernel", "launch");
  LaunchConfig l;
  l.grid = dims<long long, 3>(r, launch, path, "grid", {kIntMax, 65535, 65535});
  l.block = dims<int, 3>(r, launch, path, "block", {1024, 1024, 64});
  l.registers_per_thread = static_cast<int>(r.integer(launch, path, "registers_per_thread", 0, 65536));
  l.shared_mem_bytes_per_block = r.integer(launch, path, "shared_mem_bytes_per_block", 0);
  l.max_active_blocks_per_sm =
      static_cast<int>(r.integer(launch, path, "max_active_blocks_per_sm", 0, kIntMax));
  return l;
}

DeviceInfo read_device(const Fields& r, const json& doc) {
  const std::string path = "device";
  const json& device = r.member(doc, "", "device");
  DeviceInfo d;
  d.name = r.str(device, path, "name");
  d.chip = r.str(device, path, "chip");
  const std::string cc = r.str(device, path, "compute_capability");
  if (!parse_compute_capability(cc, d.compute_capability_major, d.compute_capability_minor))
    r.fail("device.compute_capability", "expected \"<major>.<minor>\", got \"" + cc + "\"");
  d.sm_count = static_cast<int>(r.integer(device, path, "sm_count", 0, kIntMax));
  d.max_warps_per_sm = static_cast<int>(r.integer(device, path, "max_warps_per_sm", 0, kIntMax));
  d.sm_clock_mhz = r.number(device, path, "sm_clock_mhz", 0);
  d.dram_peak_bytes_per_s = r.number(device, path, "dram_peak_bytes_per_s", 0);
  if (device.contains("ordinal")) d.ordinal = static_cast<int>(r.integer(device, path, "ordinal", 0, kIntMax));
  d.uuid = r.optional_str(device, path, "uuid");
  if (!d.uuid.empty() && !is_device_uuid_text(d.uuid))
    r.fail("device.uuid", "expected \"GPU-\" and 32 hex digits in 8-4-4-4-12 groups, got \"" + d.uuid + "\"");
  return d;
}

std::optional<ProcessTag> read_process(const Fields& r, const json& doc) {
  const json* process = r.optional_member(doc, "", "process");
  if (process == nullptr) return std::nullopt;
  r.only(*process, "process", {"pid", "rank", "rank_variable"});
  ProcessTag tag;
  tag.pid = r.integer(*process, "process", "pid", 1);
  if (process->contains("rank")) tag.rank = static_cast<int>(r.integer(*process, "process", "rank", 0, kIntMax));
  tag.rank_variable = r.optional_str(*process, "process", "rank_variable");
  if (tag.rank.has_value() == tag.rank_variable.empty())
    r.fail("process.rank_variable", "a rank and the variable it came from go together");
  return tag;
}

std::optional<GraphNodeTag> read_graph_node(const Fields& r, const json& kernel) {
  const json* graph = r.optional_member(kernel, "kernel", "graph");
  if (graph == nullptr) return std::nullopt;
  r.only(*graph, "kernel.graph", {"launch", "node", "nodes", "kernels"});
  GraphNodeTag tag;
  tag.graph_launch = r.integer(*graph, "kernel.graph", "launch", 0);
  tag.nodes = static_cast<int>(r.integer(*graph, "kernel.graph", "nodes", 1, kIntMax));
  tag.node = static_cast<int>(r.integer(*graph, "kernel.graph", "node", 0, tag.nodes - 1));
  if (const json* kernels = r.optional_member(*graph, "kernel.graph", "kernels")) {
    if (!kernels->is_array() || kernels->size() != static_cast<size_t>(tag.nodes))
      r.fail("kernel.graph.kernels", "expected an array of the graph's " + std::to_string(tag.nodes) + " kernel names");
    for (size_t i = 0; i < kernels->size(); ++i)
      tag.kernels.push_back(r.str((*kernels)[i], "kernel.graph.kernels[" + std::to_string(i) + "]"));
    if (tag.node != 0) r.fail("kernel.graph.node", "a profile of the whole graph launch has node 0");
  }
  return tag;
}

void read_counters(const Fields& r, const json& doc, KernelProfile& p) {
  const json& counters = r.member(doc, "", "counters");
  if (!counters.is_object()) r.fail("counters", "expected an object of name -> number");
  for (const auto& [name, value] : counters.items()) {
    const std::string field = "counters." + name;
    if (!is_counter_name(name)) r.fail(field, "counter name needs its rollup (e.g. \".sum\")");
    // Negative or zero values are accepted here: the model reports them as a finding.
    p.counters[name] = r.number(value, field);
  }
}

// An optional true/false hint.
void read_flag(const Fields& r, const json& hints, const char* key, std::optional<bool>& out) {
  if (!hints.contains(key)) return;
  const json& flag = r.member(hints, "hints", key);
  if (!flag.is_boolean()) r.fail(std::string("hints.") + key, "expected true or false");
  out = flag.get<bool>();
}

void read_hints(const Fields& r, const json& doc, KernelProfile& p) {
  const json* hints = r.optional_member(doc, "", "hints");
  if (hints == nullptr) return;
  r.only(*hints, "hints", {"shared_atomic_variant", "global_atomic_op", "global_atomic_op_stands_in_for",
                          "useful_updates", "global_atomic_addresses", "shared_atomic_lane_bytes",
                          "shared_cas_spin", "global_atomic_warp_aggregated", "global_atomic_exch",
                          "sass_atomic_paths"});
  if (hints->contains("shared_atomic_variant"))
    p.shared_atomic_variant = r.enumerated<OpVariant>(*hints, "hints", "shared_atomic_variant");
  if (hints->contains("global_atomic_op"))
    p.global_atomic_op = r.enumerated<GlobalAtomicOp>(*hints, "hints", "global_atomic_op");
  if (hints->contains("global_atomic_op_stands_in_for")) {
    if (!p.global_atomic_op) r.fail("hints.global_atomic_op_stands_in_for", "given without hints.global_atomic_op");
    p.global_atomic_op_stands_in_for = r.str(*hints, "hints", "global_atomic_op_stands_in_for");
    if (p.global_atomic_op_stands_in_for.empty()) r.fail("hints.global_atomic_op_stands_in_for", "must not be empty");
  }
  if (hints->contains("useful_updates")) {
    const double u = r.number(*hints, "hints", "useful_updates");
    if (u <= 0) r.fail("hints.useful_updates", "must be > 0");
    p.useful_updates = u;
  }
  if (hints->contains("shared_atomic_lane_bytes")) {
    const long long bytes = r.integer(*hints, "hints", "shared_atomic_lane_bytes", 4, 8);
    if (bytes != 4 && bytes != 8) r.fail("hints.shared_atomic_lane_bytes", "must be 4 or 8");
    p.shared_atomic_lane_bytes = static_cast<int>(bytes);
  }
  read_flag(r, *hints, "shared_cas_spin", p.shared_cas_spin);
  read_flag(r, *hints, "global_atomic_warp_aggregated", p.global_atomic_warp_aggregated);
  read_flag(r, *hints, "global_atomic_exch", p.global_atomic_exch);
  if (hints->contains("sass_atomic_paths")) {
    const json& paths = r.member(*hints, "hints", "sass_atomic_paths");
    if (!paths.is_object()) r.fail("hints.sass_atomic_paths", "expected an object of path: count");
    for (const auto& [name, count] : paths.items()) {
      const std::string field = "hints.sass_atomic_paths." + name;
      const std::optional<AtomicPath> path = parse_enum<AtomicPath>(name);
      if (!path) r.fail(field, "unknown atomic path");
      if (!count.is_number_integer() || count.get<long long>() < 1 || count.get<long long>() > 1000000)
        r.fail(field, "expected an instruction count from 1 to 1000000");
      p.sass_atomic_paths[*path] = static_cast<int>(count.get<long long>());
    }
  }
  if (hints->contains("global_atomic_addresses")) {
    const double addresses = r.number(*hints, "hints", "global_atomic_addresses");
    if (addresses < 1) r.fail("hints.global_atomic_addresses", "must be >= 1");
    p.global_atomic_addresses = addresses;
  }
}

// Which launches the counts are of, and whether they are this launch's own (all optional: a
// document without them holds one launch's own counts, the first).
void read_instruction_basis(const Fields& r, const json& doc, const std::string& path, InstructionProfile& p) {
  if (doc.contains("first_launch")) p.first_launch = r.integer(doc, path, "first_launch", 0);
  if (doc.contains("threads_per_launch")) p.threads_per_launch = r.number(doc, path, "threads_per_launch", 0);
  if (doc.contains("basis")) p.basis = r.enumerated<InstructionBasis>(doc, path, "basis");
  const json* counters = r.optional_member(doc, path, "measured_counters");
  if (counters == nullptr) return;
  const std::string field = json_path(path, "measured_counters");
  if (!counters->is_object()) r.fail(field, "expected an object of name -> number");
  for (const auto& [name, value] : counters->items()) {
    if (!is_counter_name(name)) r.fail(json_path(field, name), "counter name needs its rollup (e.g. \".sum\")");
    p.measured_counters[name] = r.number(value, json_path(field, name));
  }
}

InstructionProfile read_instructions(const Fields& r, const json& doc, const std::string& path) {
  r.object(doc, path);
  r.only(doc, path, {"launches", "first_launch", "threads_per_launch", "basis", "measured_counters", "records", "loops",
                     "has_listing", "source_lines_reason"});
  InstructionProfile p;
  p.launches = r.integer(doc, path, "launches", 1);
  read_instruction_basis(r, doc, path, p);  // absent in documents before launches were told apart
  const json& listing = r.member(doc, path, "has_listing");
  if (!listing.is_boolean()) r.fail(json_path(path, "has_listing"), "expected true or false");
  p.has_listing = listing.get<bool>();
  p.source_lines_reason = r.optional_str(doc, path, "source_lines_reason");
  const json& records = r.array(doc, path, "records", EmptyArray::kAllowed);
  long long previous = -1;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string at = json_path(json_path(path, "records"), i);
    const json& v = records[i];
    r.object(v, at);
    InstructionRecord rec;
    rec.offset = r.integer(v, at, "offset", 0);
    if (rec.offset <= previous) r.fail(json_path(at, "offset"), "records must be in increasing offset order");
    previous = rec.offset;
    rec.opcode = r.optional_str(v, at, "opcode");
    rec.operands = r.optional_str(v, at, "operands");
    rec.predicate = r.optional_str(v, at, "predicate");
    rec.source = r.optional_str(v, at, "source");
    rec.executions = r.number(v, at, "executions", 0);
    rec.lanes = r.number(v, at, "lanes", 0);
    rec.wavefronts = r.number(v, at, "wavefronts", 0);
    rec.wavefronts_ideal = r.number(v, at, "wavefronts_ideal", 0);
    p.records.push_back(std::move(rec));
  }
  if (const json* loops = r.optional_member(doc, path, "loops")) {
    r.array(*loops, json_path(path, "loops"), EmptyArray::kAllowed);
    for (std::size_t i = 0; i < loops->size(); ++i) {
      const std::string at = json_path(json_path(path, "loops"), i);
      const json& v = (*loops)[i];
      if (!v.is_array() || v.size() != 2) r.fail(at, "expected [head, branch]");
      InstructionLoop loop{r.integer(v[0], json_path(at, 0), 0), r.integer(v[1], json_path(at, 1), 0)};
      if (loop.head > loop.branch) r.fail(at, "head after branch");
      p.loops.push_back(loop);
    }
  }
  return p;
}

}  // namespace

bool is_counter_name(const std::string& name) {
  const auto dot = name.find('.');
  return dot != std::string::npos && dot > 0 && dot + 1 < name.size();
}

json kernel_profile_to_json(const KernelProfile& p) {
  json doc;
  doc["format"] = kKernelProfileFormat;
  doc["version"] = kKernelProfileVersion;
  doc["kernel"] = {{"name", p.kernel_name},
                   {"launch",
                    {{"grid", p.launch.grid},
                     {"block", p.launch.block},
                     {"registers_per_thread", p.launch.registers_per_thread},
                     {"shared_mem_bytes_per_block", p.launch.shared_mem_bytes_per_block},
                     {"max_active_blocks_per_sm", p.launch.max_active_blocks_per_sm}}}};
  if (!p.symbol.empty()) doc["kernel"]["symbol"] = p.symbol;
  if (p.symbol_launch) doc["kernel"]["symbol_launch"] = *p.symbol_launch;
  if (!p.nvtx.empty()) doc["kernel"]["nvtx"] = p.nvtx;
  if (p.graph) {
    doc["kernel"]["graph"] = {{"launch", p.graph->graph_launch}, {"node", p.graph->node}, {"nodes", p.graph->nodes}};
    if (!p.graph->kernels.empty()) doc["kernel"]["graph"]["kernels"] = p.graph->kernels;
  }
  doc["device"] = {{"name", p.device.name},
                   {"chip", p.device.chip},
                   {"compute_capability", p.device.compute_capability()},
                   {"sm_count", p.device.sm_count},
                   {"max_warps_per_sm", p.device.max_warps_per_sm},
                   {"sm_clock_mhz", p.device.sm_clock_mhz},
                   {"dram_peak_bytes_per_s", p.device.dram_peak_bytes_per_s}};
  if (!p.device.uuid.empty()) {
    doc["device"]["ordinal"] = p.device.ordinal;
    doc["device"]["uuid"] = p.device.uuid;
  }
  doc["source"] = {{"kind", enum_name(p.source)}, {"detail", p.source_detail}};
  if (p.process) {
    doc["process"] = {{"pid", p.process->pid}};
    if (p.process->rank) {
      doc["process"]["rank"] = *p.process->rank;
      doc["process"]["rank_variable"] = p.process->rank_variable;
    }
  }
  doc["counters"] = json::object();
  for (const auto& [name, value] : p.counters) doc["counters"][name] = value;
  json hints = json::object();
  if (p.shared_atomic_variant) hints["shared_atomic_variant"] = enum_name(*p.shared_atomic_variant);
  if (p.global_atomic_op) hints["global_atomic_op"] = enum_name(*p.global_atomic_op);
  if (p.global_atomic_op && !p.global_atomic_op_stands_in_for.empty())
    hints["global_atomic_op_stands_in_for"] = p.global_atomic_op_stands_in_for;
  if (p.useful_updates) hints["useful_updates"] = *p.useful_updates;
  if (p.shared_atomic_lane_bytes) hints["shared_atomic_lane_bytes"] = *p.shared_atomic_lane_bytes;
  if (p.shared_cas_spin) hints["shared_cas_spin"] = *p.shared_cas_spin;
  if (p.global_atomic_warp_aggregated) hints["global_atomic_warp_aggregated"] = *p.global_atomic_warp_aggregated;
  if (p.global_atomic_exch) hints["global_atomic_exch"] = *p.global_atomic_exch;
  if (p.global_atomic_addresses) hints["global_atomic_addresses"] = *p.global_atomic_addresses;
  for (const auto& [path, count] : p.sass_atomic_paths) hints["sass_atomic_paths"][enum_name(path)] = count;
  doc["hints"] = hints;
  if (p.instructions) doc["instructions"] = instruction_profile_to_json(*p.instructions);
  return doc;
}

json instruction_profile_to_json(const InstructionProfile& p) {
  json records = json::array();
  for (const InstructionRecord& r : p.records) {
    json rec = {{"offset", r.offset},         {"executions", r.executions}, {"lanes", r.lanes},
                {"wavefronts", r.wavefronts}, {"wavefronts_ideal", r.wavefronts_ideal}};
    if (!r.opcode.empty()) rec["opcode"] = r.opcode;
    if (!r.operands.empty()) rec["operands"] = r.operands;
    if (!r.predicate.empty()) rec["predicate"] = r.predicate;
    if (!r.source.empty()) rec["source"] = r.source;
    records.push_back(std::move(rec));
  }
  json loops = json::array();
  for (const InstructionLoop& l : p.loops) loops.push_back({l.head, l.branch});
  json doc = {{"launches", p.launches}, {"has_listing", p.has_listing}, {"records", records}, {"loops", loops},
              {"first_launch", p.first_launch}, {"basis", enum_name(p.basis)}};
  if (p.threads_per_launch > 0) doc["threads_per_launch"] = p.threads_per_launch;
  if (!p.measured_counters.empty()) doc["measured_counters"] = p.measured_counters;
  if (!p.source_lines_reason.empty()) doc["source_lines_reason"] = p.source_lines_reason;
  return doc;
}

InstructionProfile instruction_profile_from_json(const json& doc, const std::string& source_name,
                                                 const std::string& field) {
  return read_instructions(Fields(source_name), doc, field);
}

std::string serialize_kernel_profile(const KernelProfile& p) {
  return json_text(kernel_profile_to_json(p), 2) + "\n";
}

KernelProfile kernel_profile_from_json(const json& doc, const std::string& source_name) {
  const Fields r(source_name);
  r.object(doc, "");
  r.require_format(doc, kKernelProfileFormat, kKernelProfileVersion);
  r.only(doc, "", {"format", "version", "kernel", "device", "source", "process", "counters", "hints", "instructions"});
  KernelProfile p;
  const json& kernel = r.member(doc, "", "kernel");
  p.kernel_name = r.str(kernel, "kernel", "name");
  if (p.kernel_name.empty()) r.fail("kernel.name", "empty");
  p.symbol = r.optional_str(kernel, "kernel", "symbol", "");
  if (kernel.contains("symbol_launch")) p.symbol_launch = r.integer(kernel, "kernel", "symbol_launch", 0);
  p.launch = read_launch(r, kernel);
  p.graph = read_graph_node(r, kernel);
  if (const json* nvtx = r.optional_member(kernel, "kernel", "nvtx")) {
    if (!nvtx->is_array()) r.fail("kernel.nvtx", "expected an array of NVTX range names, outermost first");
    for (size_t i = 0; i < nvtx->size(); ++i) p.nvtx.push_back(r.str((*nvtx)[i], "kernel.nvtx[" + std::to_string(i) + "]"));
  }
  p.device = read_device(r, doc);
  p.process = read_process(r, doc);
  const json& source = r.member(doc, "", "source");
  p.source = r.enumerated<CounterSource>(source, "source", "kind");
  p.source_detail = r.str(source, "source", "detail");
  read_counters(r, doc, p);
  read_hints(r, doc, p);
  if (const json* instructions = r.optional_member(doc, "", "instructions"))
    p.instructions = read_instructions(r, *instructions, "instructions");
  return p;
}

KernelProfile parse_kernel_profile(const std::string& json_text, const std::string& source_name) {
  return kernel_profile_from_json(Fields(source_name).parse_object(json_text), source_name);
}

KernelProfile load_kernel_profile(const std::string& path) {
  return parse_kernel_profile(Fields::read_file(path), path);
}

void validate_kernel_profile(const KernelProfile& profile, const std::string& source_name) {
  (void)kernel_profile_from_json(kernel_profile_to_json(profile), source_name);  // the one set of checks
}

bool executes_atomics(const KernelProfile& profile) {
  for (const char* name : {metric::kSharedAtomInst, metric::kGlobalAtomInst, metric::kGlobalRedInst,
                           metric::kDsmemAtomRequests, metric::kDsmemRedAsyncRequests, metric::kBulkReductionInst})
    if (profile.counter(name).value_or(0) > 0) return true;
  return false;
}

}  // namespace atomq::model
