// The report as one self-contained HTML file: tables written here, charts drawn in the page by
// Chart.js (inlined, so the file opens offline) from a JSON block holding the numbers.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "report_assets.hpp"
#include "atomq/common/json_fields.hpp"
#include "report_format.hpp"

namespace atomq::report {

using namespace detail;
using nlohmann::json;

namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

// JSON inside <script>: "</" would end the element early.
// JSON inside <script>: "</script" ends the block and "<!--" changes how the rest is parsed,
// so no "<" is left (a kernel may be named anything); JSON reads \u003c back as "<".
std::string script_safe(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '<' ? std::string("\\u003c") : std::string(1, ch);
  return out;
}

std::string class_span(model::UtilizationClass c) {
  const std::string name = enum_name(c);
  return "<span class=\"class-" + name + "\">" + escape(name) + "</span>";
}

void row(std::string& h, const std::vector<std::string>& escaped_cells, const char* tag = "td") {
  h += "<tr>";
  for (const auto& c : escaped_cells) h += fmt::format("<{0}>{1}</{0}>", tag, c);
  h += "</tr>\n";
}

// The headline lines, then the kernels ranked by time at stake (launches taken together).
void ranked_section(std::string& h, const Report& report) {
  h += "<ol class=\"headline\">\n";
  for (const auto& line : report.headlines) h += "<li>" + escape(line) + "</li>\n";
  h += "</ol>\n<h2>Kernels by time at stake</h2>\n<p>Launches of one kernel taken together; time at stake is what "
       "the best what-if of each launch saves. Figures of a kernel with several launches are those of its slowest "
       "launch.</p>\n<table class=\"summary\">\n";
  row(h, {"kernel", "launches", "total time", "median time", "share of GPU time", "time at stake", "U", "L2 U", "binds",
          "class", "best what-if", "predicted gain"}, "th");
  for (const auto& s : report.summaries) {
    const auto& k = report.kernels[s.slowest];
    const auto& a = k.analysis;
    const bool queue = a.evaluated && a.inputs.instructions > 0;
    row(h, {"<a href=\"#k-" + escape(k.label) + "\">" + escape(s.name) + "</a>", std::to_string(s.launches.size()),
            duration(s.total_ns), duration(s.median_ns), share(s.gpu_time_share),
            s.time_at_stake_ns > 0 ? duration(s.time_at_stake_ns) : "-", queue ? utilization(a.utilization.mean) : "-",
            l2_utilization(a), escape(enum_name(a.binding_unit)), class_span(a.utilization_class),
            k.best_what_if ? escape(k.best_what_if->change) : "-", k.best_what_if ? gain_interval(*k.best_what_if) : "-"});
  }
  h += "</table>\n";
}

// Kernels that ran on several ranks: each rank's launches, then the imbalance findings.
void ranks_section(std::string& h, const Report& report) {
  if (report.ranks.empty()) return;
  h += "<h2>Ranks</h2>\n<table class=\"summary\">\n";
  row(h, {"kernel", "rank", "launches", "median time", "U", "k", "class"}, "th");
  for (const auto& r : report.ranks) {
    const auto& a = report.kernels[r.slowest].analysis;
    const bool queue = a.evaluated && a.inputs.instructions > 0;
    row(h, {escape(r.name), std::to_string(r.rank), std::to_string(r.launches), duration(r.median_ns),
            queue ? utilization(a.utilization.mean) : "-",
            queue ? fmt::format("{:.1f}", a.inputs.wavefronts_per_instruction) : "-", class_span(a.utilization_class)});
  }
  h += "</table>\n<ul>\n";
  for (const auto& f : report.rank_findings) h += "<li>" + escape(f) + "</li>\n";
  if (report.rank_findings.empty()) h += "<li>No rank is slower than another beyond the noise.</li>\n";
  h += "</ul>\n";
}

void summary_table(std::string& h, const std::vector<ReportKernel>& kernels) {
  h += "<table class=\"summary\">\n";
  row(h, {"kernel", "time", "U mean", "U max", "n̂", "e", "c", "k", "S (cycles)", "L2 U", "binds", "class",
          "best what-if", "predicted gain"}, "th");
  for (const auto& k : kernels) {
    const auto& a = k.analysis;
    const std::string label = "<a href=\"#k-" + escape(k.label) + "\">" + escape(k.label) + "</a>";
    if (!a.evaluated) {
      row(h, {label, duration(k.duration_ns), "-", "-", "-", "-", "-", "-", "-", l2_utilization(a),
              escape(enum_name(a.binding_unit)), class_span(a.utilization_class), "-", "-"});
      continue;
    }
    row(h, {label, duration(k.duration_ns), utilization(a.utilization.mean), utilization(a.utilization.max),
            number(a.queue_length), number(a.inputs.active_lanes), number(a.inputs.cas_share),
            number(a.inputs.wavefronts_per_instruction), number(a.utilization.service.cycles),
            l2_utilization(a), escape(enum_name(a.binding_unit)), class_span(a.utilization_class),
            k.best_what_if ? escape(k.best_what_if->change) : "-", k.best_what_if ? gain_interval(*k.best_what_if) : "-"});
  }
  h += "</table>\n";
}

void finding_block(std::string& h, const model::Finding& f) {
  h += "<div class=\"finding\"><h4>" + escape(f.title) + " <code>" + escape(enum_name(f.kind)) + "</code></h4>\n";
  if (!f.recommendation.empty()) h += "<p class=\"recommendation\">" + escape(f.recommendation) + "</p>\n";
  if (!f.what_ifs.empty()) {
    h += "<table>\n";
    row(h, {"what if", "S (cycles)", "predicted U", "predicted time", "predicted gain (full to no overlap)",
            "in calibrated range"}, "th");
    for (const auto& w : f.what_ifs)
      row(h, {escape(w.change), number(w.service_cycles), percent(w.predicted_utilization),
              duration(w.predicted_time_ns), gain_interval(w), w.outside_calibrated_range ? "no" : "yes"});
    h += "</table>\n";
  }
  bool any_basis = false;
  for (const auto& w : f.what_ifs) any_basis |= !w.basis.empty() || w.interval.evaluated;
  if (!f.evidence.empty() || !f.details.empty() || any_basis) {
    h += "<details><summary>evidence</summary><ul>\n";
    for (const auto& e : f.evidence) h += "<li>" + escape(e.name) + ": " + escape(evidence_value(e)) + "</li>\n";
    for (const auto& d : f.details) h += "<li>" + escape(d) + "</li>\n";
    for (const auto& w : f.what_ifs)
      if (!w.basis.empty()) h += "<li>basis of &quot;" + escape(w.change) + "&quot;: " + escape(w.basis) + "</li>\n";
    for (const auto& w : f.what_ifs)
      if (w.interval.evaluated)
        h += "<li>interval of &quot;" + escape(w.change) + "&quot;: " + escape(w.interval.basis) + "</li>\n";
    h += "</ul></details>\n";
  }
  h += "</div>\n";
}

void kernel_block(std::string& h, const ReportKernel& k) {
  const auto& a = k.analysis;
  h += "<h3 id=\"k-" + escape(k.label) + "\">" + escape(k.label) + " " + class_span(a.utilization_class) + "</h3>\n";
  h += "<p><code>" + escape(k.profile.kernel_name) + "</code><br>" + escape(launch_summary(k.profile)) + ", time " +
       escape(duration(k.duration_ns)) + "</p>\n";
  h += "<p>" + escape(atomic_units_summary(a)) + "; binds: <b>" + escape(enum_name(a.binding_unit)) + "</b>. " +
       escape(a.l2.evaluated ? a.l2.basis_text + "; op " + enum_name(a.l2.op) + " (" + enum_name(a.l2.op_origin) +
                                   ": " + a.l2.op_reason + "); " + a.l2.busy_cross_check
                             : a.l2.not_evaluated_reason) +
       "</p>\n";
  if (a.evaluated && a.inputs.instructions > 0)  // an idle shared unit has no queue figures
    h += fmt::format("<p>U mean {} (busiest SM {}; {} to {} with n̂ halved / doubled); n̂ {} warps ({}), e {} ({}: {}), c {}, "
                     "k {}, S {} cycles; {} (response {} cycles, unloaded latency {}).</p>\n",
                     utilization(a.utilization.mean), utilization(a.utilization.max), percent(a.utilization.low),
                     percent(a.utilization.high), number(a.queue_length), escape(a.queue_length_method),
                     number(a.inputs.active_lanes), enum_name(a.inputs.active_lanes_origin),
                     escape(a.inputs.active_lanes_basis), number(a.inputs.cas_share),
                     number(a.inputs.wavefronts_per_instruction), number(a.utilization.service.cycles),
                     escape(a.boundness.verdict), number(a.boundness.response_cycles),
                     number(a.boundness.unloaded_latency_cycles));
  if (const auto rows = atomic_site_rows(a, 8); !rows.empty()) {
    h += "<p>Where in the code (per-instruction counts):</p>\n<table>\n";
    std::vector<std::string> header;
    for (const auto& cell : atomic_site_header()) header.push_back(escape(cell));
    row(h, header, "th");
    for (const auto& cells : rows) {
      std::vector<std::string> escaped;
      for (const auto& cell : cells) escaped.push_back(escape(cell));
      row(h, escaped);
    }
    h += "</table>\n";
  }
  if (const auto* head = headline_finding(a)) finding_block(h, *head);
  for (const auto* f : other_findings(a)) finding_block(h, *f);
  if (!a.notes.empty()) {
    h += "<details><summary>notes</summary><ul>\n";
    for (const auto& n : a.notes) h += "<li>" + escape(n) + "</li>\n";
    h += "</ul></details>\n";
  }
}

json chart_data(const Report& report) {
  json kernels = json::array(), what_ifs = json::array(), curves = json::array(), comparisons = json::array();
  for (const auto& k : report.kernels) {
    const auto& a = k.analysis;
    kernels.push_back({{"label", k.label}, {"evaluated", a.evaluated}, {"class", enum_name(a.utilization_class)},
                       {"u_mean", a.utilization.mean}, {"u_max", a.utilization.max}, {"n", a.queue_length},
                       {"l2_u", a.l2.evaluated ? json(a.l2.utilization) : json(nullptr)},
                       {"dsmem_u", a.dsmem.evaluated ? json(a.dsmem.utilization) : json(nullptr)},
                       {"load_latency_floor_us", a.time.load_latency_ns ? json(*a.time.load_latency_ns / 1e3) : json(nullptr)},
                       {"queue", a.evaluated && a.inputs.instructions > 0},
                       {"binding_unit", enum_name(a.binding_unit)},
                       {"s", a.utilization.service.cycles}});
    if (k.best_what_if)
      what_ifs.push_back({{"label", k.label}, {"change", k.best_what_if->change}, {"id", enum_name(k.best_what_if->id)},
                          {"gain_low", k.best_what_if->gain_low()}, {"gain_high", k.best_what_if->gain_high()},
                          {"gain_text", gain_interval(*k.best_what_if)}});
  }
  for (const auto& c : report.service_curves) {
    json points = json::array();
    for (const auto& [n, s] : c.points) points.push_back({n, s});
    curves.push_back({{"name", c.name}, {"points", points}});
  }
  for (const auto& c : report.comparisons) {
    json rows = json::array();
    for (const auto& r : comparison_rows(c))
      if (r.ratio && *r.ratio > 0) rows.push_back({{"quantity", r.quantity}, {"ratio", *r.ratio}});
    comparisons.push_back({{"label_a", c.label_a}, {"label_b", c.label_b}, {"rows", rows}});
  }
  return {{"kernels", kernels}, {"what_ifs", what_ifs}, {"curves", curves},
          {"curve_lanes", report.service_curve_lanes}, {"comparisons", comparisons}};
}

// Installed before Chart.js loads so errors anywhere in the page are recorded on <body>.
constexpr const char* kErrorRecorder = R"js(window.atomqErrors = [];
(function () {
  function note(message) {
    window.atomqErrors.push(message);
    if (document.body) {
      document.body.setAttribute('data-atomq-errors', window.atomqErrors.join(' | '));
      document.body.setAttribute('data-atomq-status', 'failed');
    }
  }
  window.addEventListener('error', function (e) { note('error: ' + e.message); });
  var error = console.error, warn = console.warn;
  console.error = function () { note('console.error: ' + Array.prototype.join.call(arguments, ' ')); error.apply(console, arguments); };
  console.warn = function () { note('console.warn: ' + Array.prototype.join.call(arguments, ' ')); warn.apply(console, arguments); };
})();)js";

}  // namespace

bool html_supported() { return detail::chart_js_source() != nullptr; }

std::string render_html(const Report& report) {
  if (!html_supported())
    throw ReportError("this atomq was built without Chart.js (Debian package libjs-chart.js): install it, "
                      "configure and build again, or write Markdown (-o report.md)");
  const auto& p = report.table_provenance;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                  escape(report.title) + "</title>\n<style>\n" + detail::report_css_source() + "</style>\n<script>\n" +
                  kErrorRecorder + "\n</script>\n</head>\n<body>\n";
  h += "<h1>" + escape(report.title) + "</h1>\n";
  ranked_section(h, report);
  for (const auto& note : report.notes) h += "<p class=\"note\">" + escape(note) + "</p>\n";
  h += fmt::format("<p>Service-time table <code>{}</code> ({}): {} {}, {} grid, driver {}, measured {} by atomq {}. "
                   "U is the share of time the SM's shared atomic unit is busy, L2 U that of the hottest L2 slice's "
                   "atomic unit (global atomics); n̂ warps in flight, e active lanes, "
                   "c CAS share, k wavefronts per instruction, S the calibrated service time.</p>\n",
                   escape(report.table_path), escape(report.table_origin), escape(p.device.name), escape(p.device.chip),
                   escape(p.grid_name), escape(p.driver_release), escape(p.created_utc), escape(p.atomq_commit));

  h += "<h2>Launches</h2>\n<div class=\"grid2\">\n";
  // One readable bar row per launch: the chart grows with the kernel count.
  h += fmt::format("<div class=\"chart\" style=\"height: {}px\"><canvas id=\"chart-utilization\" "
                   "data-atomq-chart=\"utilization\"></canvas></div>\n",
                   std::max<size_t>(320, 120 + 28 * report.kernels.size()));
  bool any_what_if = false;
  for (const auto& k : report.kernels) any_what_if |= k.best_what_if.has_value();
  if (any_what_if) h += "<div class=\"chart\"><canvas id=\"chart-what-if\" data-atomq-chart=\"what-if\"></canvas></div>\n";
  h += "</div>\n";
  summary_table(h, report.kernels);
  if (!report.baseline_kernels.empty()) {
    h += "<h3>Baseline (--compare)</h3>\n";
    summary_table(h, report.baseline_kernels);
  }
  ranks_section(h, report);

  if (!report.comparisons.empty() || !report.unmatched.empty()) {
    h += "<h2>Comparisons</h2>\n";
    for (size_t i = 0; i < report.comparisons.size(); ++i) {
      const auto& c = report.comparisons[i];
      h += "<h3>" + escape(c.title) + "</h3>\n<p>" + escape(c.result.summary);
      if (c.duration_a_ns && c.duration_b_ns && *c.duration_b_ns > 0)
        h += " Measured kernel time: " + duration(c.duration_a_ns) + " (A) &rarr; " + duration(c.duration_b_ns) +
             " (B): " + b_against_a(*c.duration_a_ns, *c.duration_b_ns) + ".";
      if (c.result.predicted_gain) h += " " + escape(predicted_against_measured(*c.result.predicted_gain));
      h += "</p>\n<div class=\"grid2\"><div><table>\n";
      row(h, {"quantity", "A: " + escape(c.label_a), "B: " + escape(c.label_b), "B / A"}, "th");
      bool any_ratio = false;
      for (const auto& r : comparison_rows(c)) {
        row(h, {escape(r.quantity), comparison_value(r, r.a), comparison_value(r, r.b), ratio(r.ratio)});
        any_ratio |= r.ratio && *r.ratio > 0;
      }
      h += "</table></div>\n";
      if (any_ratio)
        h += fmt::format("<div class=\"chart tall\"><canvas id=\"chart-comparison-{0}\" data-atomq-chart=\"comparison\" "
                         "data-index=\"{0}\"></canvas></div>\n", i);
      h += "</div>\n";
      for (const auto& f : c.result.findings) finding_block(h, f);
    }
    if (!report.unmatched.empty() || !report.extra_launches.empty()) {
      h += "<ul>\n";
      for (const auto& u : report.unmatched) h += "<li>unmatched: " + escape(u) + "</li>\n";
      for (const auto& x : report.extra_launches) h += "<li>" + escape(x) + "</li>\n";
      h += "</ul>\n";
    }
  }

  h += "<h2>Kernels</h2>\n";
  for (const auto& k : report.kernels) kernel_block(h, k);
  for (const auto& k : report.baseline_kernels) kernel_block(h, k);

  if (!report.service_curves.empty()) {
    h += "<h2>The service-time table</h2>\n<p>Calibrated S(n) on a few slices of the table, and each kernel's "
         "operating point (n̂, S) from the model.</p>\n";
    h += "<div class=\"chart tall\"><canvas id=\"chart-service\" data-atomq-chart=\"service\"></canvas></div>\n";
  }
  h += "<h2>Runs</h2>\n<ul>\n";
  for (const auto& r : report.runs) h += "<li>" + escape(r) + "</li>\n";
  h += "</ul>\n<p>Charts: Chart.js " + escape(detail::chart_js_version()) + " (MIT licence), inlined.</p>\n";

  h += "<script type=\"application/json\" id=\"atomq-report-data\">" + script_safe(json_text(chart_data(report))) +
       "</script>\n<script>\n" + detail::chart_js_source() + "\n</script>\n<script>\n" +
       detail::report_js_source() + "\n</script>\n</body>\n</html>\n";
  return h;
}

}  // namespace atomq::report
