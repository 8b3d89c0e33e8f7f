// The flat per-kernel export: one row per kernel of the report (KernelSummary), the same
// columns in CSV and JSON, defined once in kSummaryColumns.
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>

#include "atomq/common/atomic_file.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/report/report.hpp"

namespace atomq::report {

namespace {

using nlohmann::json;

struct Row {
  const KernelSummary& summary;
  const ReportKernel& slowest;  // the launch the model figures come from
};

json number_or_null(std::optional<double> v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }

// Model figures exist only for a kernel whose shared-atomic queue was evaluated.
json queue_value(const Row& r, double v) {
  const auto& a = r.slowest.analysis;
  return a.evaluated && a.inputs.instructions > 0 ? json(v) : json(nullptr);
}

struct Column {
  const char* name;
  const char* meaning;
  std::function<json(const Row&)> value;
};

const std::vector<Column>& columns() {
  static const std::vector<Column> kSummaryColumns = {
      {"run", "run document label (its file name)", [](const Row& r) { return json(r.summary.run_label); }},
      {"kernel", "the report's kernel label", [](const Row& r) { return json(r.summary.name); }},
      {"kernel_name", "full (demangled) kernel name", [](const Row& r) { return json(r.summary.kernel); }},
      {"launches", "launches of the kernel in the run", [](const Row& r) { return json(r.summary.launches.size()); }},
      {"total_time_us", "measured kernel time over its launches, µs",
       [](const Row& r) { return number_or_null(r.summary.total_ns ? std::optional(*r.summary.total_ns / 1e3) : std::nullopt); }},
      {"median_time_us", "median measured time of one launch, µs",
       [](const Row& r) { return number_or_null(r.summary.median_ns ? std::optional(*r.summary.median_ns / 1e3) : std::nullopt); }},
      {"gpu_time_share", "total_time over all kernels' time in the report (0-1)",
       [](const Row& r) { return json(r.summary.gpu_time_share); }},
      {"time_at_stake_us", "time the best what-if of each launch saves, summed, µs",
       [](const Row& r) { return json(r.summary.time_at_stake_ns / 1e3); }},
      {"class", "utilization class (the binding unit's)",
       [](const Row& r) { return json(enum_name(r.slowest.analysis.utilization_class)); }},
      {"binding_unit", "shared_atomic_unit, l2_atomic_unit, dsmem_path or none",
       [](const Row& r) { return json(enum_name(r.slowest.analysis.binding_unit)); }},
      {"u_mean", "shared atomic unit utilization, mean over SMs (0-1; may exceed 1 by counter noise)",
       [](const Row& r) { return queue_value(r, r.slowest.analysis.utilization.mean); }},
      {"u_max", "shared atomic unit utilization, busiest SM",
       [](const Row& r) { return queue_value(r, r.slowest.analysis.utilization.max); }},
      {"l2_u", "hottest L2 slice's atomic unit utilization (empty: not measured)",
       [](const Row& r) { return r.slowest.analysis.l2.evaluated ? json(r.slowest.analysis.l2.utilization) : json(nullptr); }},
      {"dsmem_u", "the SM's DSMEM request path utilization (empty: no DSMEM traffic, or a table without its section)",
       [](const Row& r) { return r.slowest.analysis.dsmem.evaluated ? json(r.slowest.analysis.dsmem.utilization) : json(nullptr); }},
      {"bound_by", "the largest floor of the predicted time: atomic units, instruction issue, memory or load latency",
       [](const Row& r) { return json(r.slowest.analysis.time.bound_by); }},
      {"load_latency_floor_us", "the load latency floor, µs (empty: no global loads, or not evaluated)",
       [](const Row& r) {
         const auto& t = r.slowest.analysis.time.load_latency_ns;
         return number_or_null(t ? std::optional(*t / 1e3) : std::nullopt);
       }},
      {"queue_length", "n̂: warps in flight at the shared atomic unit",
       [](const Row& r) { return queue_value(r, r.slowest.analysis.queue_length); }},
      {"active_lanes", "e: active lanes per atomic instruction",
       [](const Row& r) { return queue_value(r, r.slowest.analysis.inputs.active_lanes); }},
      {"cas_share", "c: share of CAS among the shared atomics",
       [](const Row& r) { return queue_value(r, r.slowest.analysis.inputs.cas_share); }},
      {"wavefronts_per_instruction", "k: shared wavefronts per atomic instruction (conflict degree)",
       [](const Row& r) { return queue_value(r, r.slowest.analysis.inputs.wavefronts_per_instruction); }},
      {"service_cycles", "S: calibrated service time per warp instruction, cycles",
       [](const Row& r) { return queue_value(r, r.slowest.analysis.utilization.service.cycles); }},
      {"best_what_if", "the recommended change: among the what-ifs that cannot lose, the largest sure gain (the low end), then the largest high end",
       [](const Row& r) { return r.slowest.best_what_if ? json(r.slowest.best_what_if->change) : json(nullptr); }},
      {"best_what_if_id", "its stable id (the analysis JSON's what-if id)",
       [](const Row& r) { return r.slowest.best_what_if ? json(enum_name(r.slowest.best_what_if->id)) : json(nullptr); }},
      {"predicted_gain", "its predicted speedup (current / predicted time, no overlap: the high end)",
       [](const Row& r) { return r.slowest.best_what_if ? json(r.slowest.best_what_if->speedup) : json(nullptr); }},
      {"predicted_gain_low", "its expected gain's low end (full overlap), as the report shows it",
       [](const Row& r) { return r.slowest.best_what_if ? json(r.slowest.best_what_if->gain_low()) : json(nullptr); }},
      {"predicted_gain_high", "its expected gain's high end (no overlap), as the report shows it",
       [](const Row& r) { return r.slowest.best_what_if ? json(r.slowest.best_what_if->gain_high()) : json(nullptr); }},
      {"device", "GPU the kernel ran on", [](const Row& r) { return json(r.slowest.profile.device.name); }},
  };
  return kSummaryColumns;
}

std::vector<json> rows(const Report& report) {
  std::vector<json> out;
  for (const auto& s : report.summaries) {
    const Row r{s, report.kernels[s.slowest]};
    json row = json::object();
    for (const auto& c : columns()) row[c.name] = c.value(r);
    out.push_back(std::move(row));
  }
  return out;
}

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. A text
// field that a spreadsheet would read as a formula (starting with = + - @, a tab or a carriage
// return) gets a leading ' (OWASP's CSV injection advice); numbers stay numbers.
std::string csv_field(const json& v) {
  if (v.is_null()) return "";
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  if (v.is_string() && !text.empty() && text.front() != '\0' && std::strchr("=+-@\t\r", text.front()) != nullptr)
    text.insert(0, "'");
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> summary_columns() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : columns()) out.emplace_back(c.name, c.meaning);
  return out;
}

std::string render_summary_csv(const Report& report) {
  std::string out;
  for (const auto& c : columns()) out += (out.empty() ? "" : ",") + std::string(c.name);
  out += "\r\n";
  for (const auto& row : rows(report)) {
    std::string line;
    for (const auto& c : columns()) line += (line.empty() ? "" : ",") + csv_field(row[c.name]);
    out += line + "\r\n";
  }
  return out;
}

std::string render_summary_json(const Report& report) {
  json doc{{"format", "atomq.kernel_summary"}, {"version", 1}, {"title", report.title}};
  json cols = json::array();
  for (const auto& c : columns()) cols.push_back({{"name", c.name}, {"meaning", c.meaning}});
  doc["columns"] = cols;
  doc["kernels"] = rows(report);
  return json_text(doc, 1) + "\n";
}

}  // namespace atomq::report
