// A short plain-text summary for the terminal: one line per kernel, then what to do and what
// the comparisons show.
#include <fmt/format.h>

#include "report_format.hpp"

namespace atomq::report {

using namespace detail;

std::string render_terminal_summary(const Report& report) {
  std::string out;
  size_t width = 6;
  for (const auto& k : report.kernels) width = std::max(width, k.label.size());
  width = std::min<size_t>(width, 48);
  out += fmt::format("{:<{}} {:>10} {:>6} {:>6} {:>6} {:>6} {:>5} {:>5} {:>5}  {}\n", "kernel", width, "time", "U",
                     "U max", "L2 U", "n^", "e", "c", "k", "class");
  for (const auto& k : report.kernels) {
    const auto& a = k.analysis;
    const std::string label = k.label.size() > width ? k.label.substr(0, width - 1) + "~" : k.label;
    if (!a.evaluated) {
      out += fmt::format("{:<{}} {:>10} {:>6} {:>6} {:>6} {:>6} {:>5} {:>5} {:>5}  {}\n", label, width,
                         duration(k.duration_ns), "-", "-", l2_utilization(a), "-", "-", "-", "-",
                         enum_name(a.utilization_class));
      continue;
    }
    out += fmt::format("{:<{}} {:>10} {:>6} {:>6} {:>6} {:>6} {:>5} {:>5} {:>5}  {}\n", label, width,
                       duration(k.duration_ns), percent(a.utilization.mean), percent(a.utilization.max),
                       l2_utilization(a), number(a.queue_length),
                       number(a.inputs.active_lanes), number(a.inputs.cas_share),
                       number(a.inputs.wavefronts_per_instruction), enum_name(a.utilization_class));
  }
  out += "\n";
  for (const auto& k : report.kernels) {
    const auto* head = headline_finding(k.analysis);
    out += fmt::format("{}: {}\n", k.label, head ? head->title : "no finding");
    out += fmt::format("    {}; binds: {}\n", atomic_units_summary(k.analysis), enum_name(k.analysis.binding_unit));
    for (const auto* f : other_findings(k.analysis)) out += "    " + f->title + "\n";
    const std::string advice = main_recommendation(k);
    if (!advice.empty()) out += "    -> " + advice + "\n";
    if (k.best_what_if)
      out += fmt::format("    what-if: {}: predicted {} faster{}\n", k.best_what_if->change, speedup(k.best_what_if->speedup),
                         k.best_what_if->outside_calibrated_range ? " (outside the calibrated range)" : "");
  }
  if (!report.comparisons.empty()) out += "\n";
  for (const auto& c : report.comparisons) {
    out += fmt::format("{}: {}", c.title, c.result.summary);
    if (c.duration_a_ns && c.duration_b_ns && *c.duration_b_ns > 0)
      out += fmt::format(" Measured: {} -> {}, {}.", duration(c.duration_a_ns), duration(c.duration_b_ns),
                         b_against_a(*c.duration_a_ns, *c.duration_b_ns));
    out += "\n";
  }
  return out;
}

}  // namespace atomq::report
