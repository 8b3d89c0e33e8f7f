// The report as Markdown: headings, lists and plain pipe tables (no HTML), so it reads the
// same in a terminal, a pull request or a wiki.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "atomq/model/analysis.hpp"
#include "report_format.hpp"

namespace atomq::report {

using namespace detail;

namespace {

// Any text in the report (names, the model's sentences, file names, provenance): control
// characters shown as escapes, every character Markdown or its HTML could read as markup
// escaped with a backslash, the backslash itself first (so "\\<" cannot undo the escape of
// "<"), and "_" where it could start or end emphasis. ">" stays: with "<" escaped it ends no tag,
// and no field starts a line (where it would open a quote).
std::string text(const std::string& raw) {
  const std::string visible = terminal_text(raw);
  std::string out;
  for (size_t i = 0; i < visible.size(); ++i) {
    const char ch = visible[i];
    const auto word = [&](size_t j) {
      return j < visible.size() && std::isalnum(static_cast<unsigned char>(visible[j]));
    };
    const bool intraword_underscore = ch == '_' && i > 0 && word(i - 1) && word(i + 1);
    if (std::strchr("\\`*[]<|&~", ch) != nullptr || (ch == '_' && !intraword_underscore)) out += '\\';
    out += ch;
  }
  return out;
}

// A code span around any text: the fence is longer than the longest run of backticks in it.
std::string code(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char ch : text) longest = std::max(longest, run = ch == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  const std::string flat = terminal_text(text);  // no line break or escape sequence inside
  return fence + (pad ? " " : "") + flat + (pad ? " " : "") + fence;
}

void table_row(std::string& md, const std::vector<std::string>& cells) {
  md += "|";
  for (const auto& c : cells) md += " " + text(c) + " |";
  md += "\n";
}

void table_header(std::string& md, const std::vector<std::string>& cells) {
  table_row(md, cells);
  md += "|";
  for (size_t i = 0; i < cells.size(); ++i) md += "---|";
  md += "\n";
}

void ranked_table(std::string& md, const Report& report) {
  table_header(md, {"kernel", "launches", "total time", "median time", "share of GPU time", "time at stake", "U", "L2 U",
                    "binds", "class", "best what-if", "predicted gain"});
  for (const auto& s : report.summaries) {
    const auto& k = report.kernels[s.slowest];
    const auto& a = k.analysis;
    const bool queue = a.evaluated && a.inputs.instructions > 0;
    table_row(md, {s.name, std::to_string(s.launches.size()), duration(s.total_ns), duration(s.median_ns),
                   share(s.gpu_time_share), s.time_at_stake_ns > 0 ? duration(s.time_at_stake_ns) : "-",
                   queue ? utilization(a.utilization.mean) : "-", l2_utilization(a), enum_name(a.binding_unit),
                   enum_name(a.utilization_class), k.best_what_if ? k.best_what_if->change : "-",
                   k.best_what_if ? gain_interval(*k.best_what_if) : "-"});
  }
}

void summary_table(std::string& md, const std::vector<ReportKernel>& kernels) {
  table_header(md, {"kernel", "time", "U mean", "U max", "n̂", "e", "c", "k", "S (cycles)", "L2 U", "binds",
                    "class", "best what-if", "predicted gain"});
  for (const auto& k : kernels) {
    const auto& a = k.analysis;
    if (!a.evaluated) {
      table_row(md, {k.label, duration(k.duration_ns), "-", "-", "-", "-", "-", "-", "-", l2_utilization(a),
                     enum_name(a.binding_unit), enum_name(a.utilization_class), "-", "-"});
      continue;
    }
    table_row(md, {k.label, duration(k.duration_ns), utilization(a.utilization.mean), utilization(a.utilization.max),
                   number(a.queue_length), number(a.inputs.active_lanes), number(a.inputs.cas_share),
                   number(a.inputs.wavefronts_per_instruction), number(a.utilization.service.cycles),
                   l2_utilization(a), enum_name(a.binding_unit), enum_name(a.utilization_class),
                   k.best_what_if ? k.best_what_if->change : "-",
                   k.best_what_if ? gain_interval(*k.best_what_if) : "-"});
  }
}

void finding_section(std::string& md, const model::Finding& f) {
  md += fmt::format("**{}** ({})\n\n", text(f.title), code(enum_name(f.kind)));
  if (!f.evidence.empty()) {
    md += "Evidence:\n\n";
    for (const auto& e : f.evidence) md += fmt::format("- {}: {}\n", text(e.name), text(evidence_value(e)));
    md += "\n";
  }
  for (const auto& d : f.details) md += "- " + text(d) + "\n";
  if (!f.details.empty()) md += "\n";
  if (!f.recommendation.empty()) md += "Recommendation: " + text(f.recommendation) + "\n\n";
  if (!f.what_ifs.empty()) {
    table_header(md, {"what if", "S (cycles)", "predicted U", "predicted time", "predicted gain (full to no overlap)",
                      "in calibrated range"});
    for (const auto& w : f.what_ifs)
      table_row(md, {w.change, number(w.service_cycles), percent(w.predicted_utilization),
                     duration(w.predicted_time_ns), gain_interval(w), w.outside_calibrated_range ? "no" : "yes"});
    md += "\n";
    for (const auto& w : f.what_ifs) {
      if (!w.basis.empty()) md += fmt::format("- basis of \"{}\": {}\n", text(w.change), text(w.basis));
      if (w.interval.evaluated) md += fmt::format("- interval of \"{}\": {}\n", text(w.change), text(w.interval.basis));
    }
    md += "\n";
  }
}

// The L2 queue of a kernel: utilization of the hottest slice, why that service time, the op.
void l2_lines(std::string& md, const model::KernelAnalysis& a) {
  const auto& q = a.l2;
  if (!q.evaluated) {
    md += "- L2 queue: " + text(q.not_evaluated_reason) + "\n";
    return;
  }
  md += fmt::format("- L2 queue: class **{}**, hottest slice U {} at S = {} L2 cycles per request; {}\n",
                    text(enum_name(q.utilization_class)), utilization(q.utilization), number(q.service_cycles),
                    text(q.basis_text));
  md += fmt::format("- L2 op {} ({}: {}); {} requests, {} at the hottest of {} slices; {}\n", text(enum_name(q.op)),
                    text(enum_name(q.op_origin)), text(q.op_reason), number(q.inputs.requests),
                    percent(q.inputs.hottest_share), q.inputs.slices, text(q.busy_cross_check));
}

void kernel_section(std::string& md, const ReportKernel& k) {
  const auto& a = k.analysis;
  md += fmt::format("### {}\n\n", text(k.label));
  md += fmt::format("- kernel: {}\n", code(k.profile.kernel_name));
  md += fmt::format("- launch: {}\n", text(launch_summary(k.profile)));
  md += fmt::format("- time: {}\n", duration(k.duration_ns));
  md += fmt::format("- atomic units: {}; binds: **{}**\n", text(atomic_units_summary(a)),
                    text(enum_name(a.binding_unit)));
  l2_lines(md, a);
  if (a.evaluated && a.inputs.instructions > 0) {  // an idle shared unit has no queue figures
    md += fmt::format("- class: **{}**; U mean {} (max over SMs {}; {} to {} with n̂ halved / doubled)\n",
                      text(enum_name(a.utilization_class)), utilization(a.utilization.mean), utilization(a.utilization.max),
                      percent(a.utilization.low), percent(a.utilization.high));
    md += fmt::format("- n̂ = {} warps ({}), e = {} ({}: {}), c = {}, k = {}, S = {} cycles per warp instruction\n",
                      number(a.queue_length), text(a.queue_length_method), number(a.inputs.active_lanes),
                      text(enum_name(a.inputs.active_lanes_origin)), text(a.inputs.active_lanes_basis),
                      number(a.inputs.cas_share), number(a.inputs.wavefronts_per_instruction),
                      number(a.utilization.service.cycles));
    md += fmt::format("- {}: response {} cycles, unloaded latency {} cycles\n", text(a.boundness.verdict),
                      number(a.boundness.response_cycles), number(a.boundness.unloaded_latency_cycles));
  }
  md += "\n";
  if (const auto rows = atomic_site_rows(a, 8); !rows.empty()) {
    md += "Where in the code (per-instruction counts):\n\n";
    const auto header = atomic_site_header();
    for (const auto& cell : header) md += "| " + text(cell) + " ";
    md += "|\n";
    for (size_t i = 0; i < header.size(); ++i) md += "|---";
    md += "|\n";
    for (const auto& row : rows) {
      for (const auto& cell : row) md += "| " + text(cell) + " ";
      md += "|\n";
    }
    md += "\n";
  }
  if (const auto* head = headline_finding(a)) finding_section(md, *head);
  for (const auto* f : other_findings(a)) finding_section(md, *f);
  if (!a.notes.empty()) {
    md += "Notes:\n\n";
    for (const auto& n : a.notes) md += "- " + text(n) + "\n";
    md += "\n";
  }
}

void comparison_section(std::string& md, const ReportComparison& c) {
  md += fmt::format("### {}\n\n", text(c.title));
  md += text(c.result.summary) + "\n\n";
  if (c.duration_a_ns && c.duration_b_ns && *c.duration_b_ns > 0)
    md += fmt::format("Measured kernel time: {} (A) -> {} (B): {}.\n\n", duration(c.duration_a_ns),
                      duration(c.duration_b_ns), text(b_against_a(*c.duration_a_ns, *c.duration_b_ns)));
  if (c.result.predicted_gain) md += text(predicted_against_measured(*c.result.predicted_gain)) + "\n\n";
  if (!comparison_rows(c).empty()) {
    table_header(md, {"quantity", "A: " + c.label_a, "B: " + c.label_b, "B / A"});
    for (const auto& r : comparison_rows(c))
      table_row(md, {r.quantity, comparison_value(r, r.a), comparison_value(r, r.b), ratio(r.ratio)});
    md += "\n";
  }
  for (const auto& f : c.result.findings) finding_section(md, f);
}

}  // namespace

std::string render_markdown(const Report& report) {
  std::string md = "# " + text(report.title) + "\n\n";
  for (size_t i = 0; i < report.headlines.size(); ++i) md += fmt::format("{}. {}\n", i + 1, text(report.headlines[i]));
  md += "\n";
  for (const auto& note : report.notes) md += "> " + text(note) + "\n>\n";
  if (!report.notes.empty()) md.resize(md.size() - 2), md += "\n";
  const auto& p = report.table_provenance;
  md += fmt::format("Service-time table: {} ({}): {} {}, {} grid, driver {}, measured {} by atomq {}.\n\n",
                    code(report.table_path), text(report.table_origin), text(p.device.name), text(p.device.chip),
                    text(p.grid_name), text(p.driver_release), text(p.created_utc), text(p.atomq_commit));
  md += "U is the share of time the SM's shared atomic unit is busy (queueing model, docs/model.md), "
        "L2 U that of the hottest L2 slice's atomic unit (global atomics); "
        "n̂ warps in flight, e active lanes, c CAS share, k wavefronts per instruction, S the calibrated "
        "service time.\n\n";

  md += "## Kernels by time at stake\n\n";
  md += "Launches of one kernel taken together; time at stake is what the best what-if of each launch "
        "saves. Figures of a kernel with several launches are those of its slowest launch.\n\n";
  ranked_table(md, report);
  md += "\n## Launches\n\n";
  summary_table(md, report.kernels);
  md += "\n";
  if (!report.baseline_kernels.empty()) {
    md += "Baseline (`--compare`):\n\n";
    summary_table(md, report.baseline_kernels);
    md += "\n";
  }

  if (!report.ranks.empty()) {
    md += "## Ranks\n\n";
    table_header(md, {"kernel", "rank", "launches", "median time", "U", "k", "class"});
    for (const auto& r : report.ranks) {
      const auto& a = report.kernels[r.slowest].analysis;
      const bool queue = a.evaluated && a.inputs.instructions > 0;
      table_row(md, {r.name, std::to_string(r.rank), std::to_string(r.launches), duration(r.median_ns),
                     queue ? utilization(a.utilization.mean) : "-",
                     queue ? fmt::format("{:.1f}", a.inputs.wavefronts_per_instruction) : "-",
                     enum_name(a.utilization_class)});
    }
    md += "\n";
    for (const auto& f : report.rank_findings) md += "- " + text(f) + "\n";
    md += report.rank_findings.empty() ? "No rank is slower than another beyond the noise.\n\n" : "\n";
  }

  if (!report.comparisons.empty() || !report.unmatched.empty()) {
    md += "## Comparisons\n\n";
    for (const auto& c : report.comparisons) comparison_section(md, c);
    for (const auto& u : report.unmatched) md += "- unmatched: " + text(u) + "\n";
    for (const auto& x : report.extra_launches) md += "- " + text(x) + "\n";
    if (!report.unmatched.empty() || !report.extra_launches.empty()) md += "\n";
  }

  md += "## Kernels\n\n";
  for (const auto& k : report.kernels) kernel_section(md, k);
  for (const auto& k : report.baseline_kernels) kernel_section(md, k);

  if (!report.service_curves.empty()) {
    md += fmt::format("## Service time S(n) of the table (e = {}, cycles per warp instruction)\n\n",
                      report.service_curve_lanes);
    std::vector<std::string> header{"n (warps)"};
    for (const auto& c : report.service_curves) header.push_back(c.name);
    table_header(md, header);
    for (size_t i = 0; i < report.service_curves.front().points.size(); ++i) {
      std::vector<std::string> row{number(report.service_curves.front().points[i].first)};
      for (const auto& c : report.service_curves) row.push_back(number(c.points[i].second));
      table_row(md, row);
    }
    md += "\n";
  }

  md += "## Runs\n\n";
  for (const auto& r : report.runs) md += "- " + text(r) + "\n";
  return md;
}

}  // namespace atomq::report
