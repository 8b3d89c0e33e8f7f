// A short plain-text summary for the terminal: the headline lines first, then one row per
// kernel ranked by time at stake, what to do for each, and what the comparisons show. Every
// text from the inputs goes through terminal_text: no escape sequence reaches the terminal.
#include <fmt/format.h>

#include "report_format.hpp"

namespace atomq::report {

using namespace detail;

namespace {

std::string kernel_rows(const Report& report) {
  size_t width = 6;
  for (const auto& s : report.summaries) width = std::max(width, terminal_text(s.name).size());
  width = std::min<size_t>(width, 40);
  const auto row = [width](const std::vector<std::string>& c) {
    const std::string shown = terminal_text(c[0]);  // every cell comes from the report's text
    std::string name = shown.size() > width ? shown.substr(0, width - 1) + "~" : shown;
    return fmt::format("{:<{}} {:>4} {:>11} {:>6} {:>11} {:>14} {:>7} {:>7} {:>5} {:>5}  {}\n", name, width, c[1],
                       c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], terminal_text(c[10]));
  };
  // "gain": the recommended what-if's expected gain, as the headline and every export show it.
  std::string out = row({"kernel", "n", "time", "share", "at stake", "gain", "U", "L2 U", "e", "k", "class"});
  for (const auto& s : report.summaries) {
    const auto& k = report.kernels[s.slowest];
    const auto& a = k.analysis;
    const bool queue = a.evaluated && a.inputs.instructions > 0;
    out += row({s.name, std::to_string(s.launches.size()), duration(s.total_ns), share(s.gpu_time_share),
                s.time_at_stake_ns > 0 ? duration(s.time_at_stake_ns) : "-",
                k.best_what_if ? gain_interval(*k.best_what_if) : "-", queue ? utilization(a.utilization.mean) : "-",
                l2_utilization(a), queue ? number(a.inputs.active_lanes) : "-",
                queue ? number(a.inputs.wavefronts_per_instruction) : "-", enum_name(a.utilization_class)});
  }
  return out;
}

std::string kernel_advice(const ReportKernel& k, const std::string& name) {
  std::string out;
  const auto* head = headline_finding(k.analysis);
  out += fmt::format("{}: {}\n", terminal_text(name), terminal_text(head ? head->title : "no finding"));
  out += fmt::format("    {}; binds: {}\n", atomic_units_summary(k.analysis), enum_name(k.analysis.binding_unit));
  for (const auto* f : other_findings(k.analysis)) out += "    " + terminal_text(f->title) + "\n";
  const std::string advice = terminal_text(main_recommendation(k));
  if (!advice.empty()) out += "    -> " + advice + "\n";
  if (k.best_what_if)
    out += fmt::format("    what-if: {}: predicted {} faster{}\n", terminal_text(k.best_what_if->change),
                       gain_interval(*k.best_what_if),
                       k.best_what_if->outside_calibrated_range ? " (outside the calibrated range)" : "");
  return out;
}

}  // namespace

std::string render_terminal_summary(const Report& report) {
  std::string out;
  for (size_t i = 0; i < report.headlines.size(); ++i)
    out += fmt::format("{}. {}\n", i + 1, terminal_text(report.headlines[i]));
  out += "\n" + kernel_rows(report) + "\n";
  for (const auto& s : report.summaries) {
    const auto& k = report.kernels[s.slowest];
    out += kernel_advice(k, s.launches.size() > 1 ? k.label + " (slowest of " + std::to_string(s.launches.size()) +
                                                        " launches)"
                                                  : k.label);
  }
  if (!report.comparisons.empty()) out += "\n";
  for (const auto& c : report.comparisons) {
    out += fmt::format("{}: {}", terminal_text(c.title), terminal_text(c.result.summary));
    if (c.duration_a_ns && c.duration_b_ns && *c.duration_b_ns > 0)
      out += fmt::format(" Measured: {} -> {}, {}.", duration(c.duration_a_ns), duration(c.duration_b_ns),
                         b_against_a(*c.duration_a_ns, *c.duration_b_ns));
    out += "\n";
  }
  for (const auto& u : report.unmatched) out += "unmatched: " + terminal_text(u) + "\n";
  for (const auto& x : report.extra_launches) out += terminal_text(x) + "\n";
  return out;
}

}  // namespace atomq::report
