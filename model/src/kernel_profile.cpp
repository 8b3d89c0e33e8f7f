#include "atomq/model/kernel_profile.hpp"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace atomq::model {

using nlohmann::json;

std::string to_string(CounterSource s) {
  switch (s) {
    case CounterSource::kInProcess: return "in_process";
    case CounterSource::kInjected: return "injected";
    case CounterSource::kNcuCsv: return "ncu_csv";
    case CounterSource::kSynthetic: return "synthetic";
  }
  return "in_process";
}

std::optional<CounterSource> counter_source_from_string(const std::string& s) {
  for (CounterSource c : {CounterSource::kInProcess, CounterSource::kInjected,
                          CounterSource::kNcuCsv, CounterSource::kSynthetic})
    if (to_string(c) == s) return c;
  return std::nullopt;
}

namespace {

// Reads one document; every error names the source and the dotted field path.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw ProfileError(source_ + ": field '" + field + "': " + what);
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  const json& member(const json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) fail(path, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(join(path, key), "missing");
    return *it;
  }
  const json* optional_member(const json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) fail(path, "expected an object");
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }
  std::string str(const json& obj, const std::string& path, const char* key) const {
    const json& v = member(obj, path, key);
    if (!v.is_string()) fail(join(path, key), "expected a string");
    return v.get<std::string>();
  }
  long long integer(const json& v, const std::string& field, long long min_value) const {
    if (!v.is_number_integer()) fail(field, "expected an integer");
    const long long i = v.get<long long>();
    if (i < min_value) fail(field, "must be >= " + std::to_string(min_value));
    return i;
  }
  long long integer(const json& obj, const std::string& path, const char* key,
                    long long min_value) const {
    return integer(member(obj, path, key), join(path, key), min_value);
  }
  double number(const json& v, const std::string& field) const {
    if (!v.is_number()) fail(field, "expected a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(field, "not a finite number");
    return d;
  }
  double number(const json& obj, const std::string& path, const char* key) const {
    return number(member(obj, path, key), join(path, key));
  }
  template <typename T, std::size_t N>
  std::array<T, N> triple(const json& obj, const std::string& path, const char* key) const {
    const json& v = member(obj, path, key);
    const std::string field = join(path, key);
    if (!v.is_array() || v.size() != N) fail(field, "expected an array of " + std::to_string(N));
    std::array<T, N> out{};
    for (std::size_t i = 0; i < N; ++i)
      out[i] = static_cast<T>(integer(v[i], field + "[" + std::to_string(i) + "]", 1));
    return out;
  }

 private:
  std::string source_;
};

// A counter name carries its rollup: "<metric>.<rollup>[.<submetric>]".
bool has_rollup(const std::string& name) {
  const auto dot = name.find('.');
  return dot != std::string::npos && dot > 0 && dot + 1 < name.size();
}

}  // namespace

std::string serialize_kernel_profile(const KernelProfile& p) {
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
  doc["device"] = {{"name", p.device.name},
                   {"chip", p.device.chip},
                   {"compute_capability",
                    std::to_string(p.device.compute_capability_major) + "." +
                        std::to_string(p.device.compute_capability_minor)},
                   {"sm_count", p.device.sm_count},
                   {"max_warps_per_sm", p.device.max_warps_per_sm},
                   {"sm_clock_mhz", p.device.sm_clock_mhz},
                   {"dram_peak_bytes_per_s", p.device.dram_peak_bytes_per_s}};
  doc["source"] = {{"kind", to_string(p.source)}, {"detail", p.source_detail}};
  doc["counters"] = json::object();
  for (const auto& [name, value] : p.counters) doc["counters"][name] = value;
  json hints = json::object();
  if (p.shared_atomic_variant) hints["shared_atomic_variant"] = *p.shared_atomic_variant;
  if (p.useful_updates) hints["useful_updates"] = *p.useful_updates;
  doc["hints"] = hints;
  return doc.dump(2) + "\n";
}

KernelProfile parse_kernel_profile(const std::string& json_text, const std::string& source_name) {
  Reader r(source_name);
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw ProfileError(source_name + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object()) r.fail("", "expected a JSON object");
  const std::string format = r.str(doc, "", "format");
  if (format != kKernelProfileFormat)
    r.fail("format", "expected \"" + std::string(kKernelProfileFormat) + "\", got \"" + format + "\"");
  const long long version = r.integer(doc, "", "version", 0);
  if (version != kKernelProfileVersion)
    r.fail("version", "unsupported version " + std::to_string(version) + " (this build reads " +
                          std::to_string(kKernelProfileVersion) + ")");

  KernelProfile p;
  const json& kernel = r.member(doc, "", "kernel");
  p.kernel_name = r.str(kernel, "kernel", "name");
  if (p.kernel_name.empty()) r.fail("kernel.name", "empty");
  const json& launch = r.member(kernel, "kernel", "launch");
  p.launch.grid = r.triple<long long, 3>(launch, "kernel.launch", "grid");
  p.launch.block = r.triple<int, 3>(launch, "kernel.launch", "block");
  p.launch.registers_per_thread =
      static_cast<int>(r.integer(launch, "kernel.launch", "registers_per_thread", 0));
  p.launch.shared_mem_bytes_per_block =
      r.integer(launch, "kernel.launch", "shared_mem_bytes_per_block", 0);
  p.launch.max_active_blocks_per_sm =
      static_cast<int>(r.integer(launch, "kernel.launch", "max_active_blocks_per_sm", 0));

  const json& device = r.member(doc, "", "device");
  p.device.name = r.str(device, "device", "name");
  p.device.chip = r.str(device, "device", "chip");
  const std::string cc = r.str(device, "device", "compute_capability");
  int major = 0, minor = 0;
  char dot = 0;
  std::istringstream cc_in(cc);
  if (!(cc_in >> major >> dot >> minor) || dot != '.' || major < 0 || minor < 0)
    r.fail("device.compute_capability", "expected \"<major>.<minor>\", got \"" + cc + "\"");
  p.device.compute_capability_major = major;
  p.device.compute_capability_minor = minor;
  p.device.sm_count = static_cast<int>(r.integer(device, "device", "sm_count", 0));
  p.device.max_warps_per_sm = static_cast<int>(r.integer(device, "device", "max_warps_per_sm", 0));
  p.device.sm_clock_mhz = r.number(device, "device", "sm_clock_mhz");
  if (p.device.sm_clock_mhz < 0) r.fail("device.sm_clock_mhz", "must be >= 0");
  p.device.dram_peak_bytes_per_s = r.number(device, "device", "dram_peak_bytes_per_s");
  if (p.device.dram_peak_bytes_per_s < 0) r.fail("device.dram_peak_bytes_per_s", "must be >= 0");

  const json& source = r.member(doc, "", "source");
  const std::string kind = r.str(source, "source", "kind");
  const auto parsed_kind = counter_source_from_string(kind);
  if (!parsed_kind) r.fail("source.kind", "unknown source \"" + kind + "\"");
  p.source = *parsed_kind;
  p.source_detail = r.str(source, "source", "detail");

  const json& counters = r.member(doc, "", "counters");
  if (!counters.is_object()) r.fail("counters", "expected an object of name -> number");
  for (const auto& [name, value] : counters.items()) {
    const std::string field = "counters." + name;
    if (!has_rollup(name)) r.fail(field, "counter name needs its rollup (e.g. \".sum\")");
    // Negative or zero values are accepted here: the model reports them as a finding.
    p.counters[name] = r.number(value, field);
  }

  if (const json* hints = r.optional_member(doc, "", "hints")) {
    if (!hints->is_object()) r.fail("hints", "expected an object");
    for (const auto& [key, value] : hints->items()) {
      if (key == "shared_atomic_variant") {
        if (!value.is_string() || (value != "popc_inc" && value != "add"))
          r.fail("hints.shared_atomic_variant", "expected \"popc_inc\" or \"add\"");
        p.shared_atomic_variant = value.get<std::string>();
      } else if (key == "useful_updates") {
        const double u = r.number(value, "hints.useful_updates");
        if (u <= 0) r.fail("hints.useful_updates", "must be > 0");
        p.useful_updates = u;
      } else {
        r.fail("hints." + key, "unknown hint");
      }
    }
  }
  for (const auto& [key, value] : doc.items()) {
    (void)value;
    if (key != "format" && key != "version" && key != "kernel" && key != "device" &&
        key != "source" && key != "counters" && key != "hints")
      r.fail(key, "unknown field");
  }
  return p;
}

KernelProfile load_kernel_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ProfileError(path + ": cannot open");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_kernel_profile(buffer.str(), path);
}

}  // namespace atomq::model
