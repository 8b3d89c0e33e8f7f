#include "report_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace atomq::report::detail {

namespace {

constexpr double kTimeNoise = 0.03;

// Beyond this a figure is shown in scientific notation: llround would overflow long long.
constexpr double kLargestGrouped = 1e15;

std::string group_thousands(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

}  // namespace

std::string percent(double fraction) { return fmt::format("{:.0f}%", 100.0 * fraction); }

std::string number(double value) {
  if (!std::isfinite(value)) return "-";
  const double magnitude = std::fabs(value);
  if (magnitude >= kLargestGrouped) return fmt::format("{:.3g}", value);
  if (magnitude >= 10000) return group_thousands(std::llround(value));
  if (magnitude >= 100) return fmt::format("{:.0f}", value);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  if (magnitude == 0) return "0";
  return fmt::format("{:.3g}", value);
}

std::string share(double fraction) {
  if (fraction >= 0.1) return percent(fraction);
  return fmt::format("{:.1f}%", 100.0 * fraction);
}

std::string utilization(double fraction) {
  // Counter noise can put a saturated unit slightly above 100%: marked, not compared as more.
  return fraction > 1.0 ? "100%+" : percent(fraction);
}

std::string duration(std::optional<double> ns) {
  if (!ns || !std::isfinite(*ns)) return "-";
  const double us = *ns / 1e3;
  if (std::fabs(us) >= kLargestGrouped) return fmt::format("{:.3g} µs", us);
  if (us >= 1000) return group_thousands(std::llround(us)) + " µs";
  if (us >= 100) return fmt::format("{:.0f} µs", us);
  if (us >= 10) return fmt::format("{:.1f} µs", us);
  return fmt::format("{:.2f} µs", us);
}

std::string speedup(double factor) {
  if (factor >= 100) return fmt::format("{:.0f}x", factor);
  if (factor >= 10) return fmt::format("{:.1f}x", factor);
  return fmt::format("{:.2f}x", factor);
}

std::string gain_range(double low, double high) {
  if (std::fabs(high - low) <= 0.005 * high) return speedup(high);
  return speedup(low) + " to " + speedup(high);
}

std::string gain_interval(const model::WhatIf& w) { return gain_range(w.gain_low(), w.gain_high()); }

std::string predicted_against_measured(const model::PredictedGain& p) {
  const std::string where = p.inside                          ? "inside the interval"
                            : p.measured < p.interval.low     ? "below the interval"
                                                              : "above the interval";
  return fmt::format("Predicted for \"{}\" (A's what-if with the largest gain): {}; measured B over A: {}, {}.",
                     p.change, gain_range(p.interval.low, p.interval.high), speedup(p.measured),
                     where);
}

std::string b_against_a(double a_ns, double b_ns) {
  if (a_ns <= 0 || b_ns <= 0) return "-";
  // Kernel times vary by a few percent between runs: closer than that is no change.
  if (std::fabs(b_ns - a_ns) <= kTimeNoise * std::max(a_ns, b_ns))
    return fmt::format("no change beyond {:.0f}% run-to-run noise", 100 * kTimeNoise);
  return a_ns >= b_ns ? fmt::format("B is {} faster", speedup(a_ns / b_ns))
                      : fmt::format("B is {} slower", speedup(b_ns / a_ns));
}

std::string evidence_value(const model::Evidence& e) {
  if (e.unit == "fraction") return percent(e.value);
  return e.unit.empty() ? number(e.value) : number(e.value) + " " + e.unit;
}

std::string launch_summary(const model::KernelProfile& p) {
  std::string s = fmt::format("grid {} x block {}", p.launch.blocks(), p.launch.threads_per_block());
  if (!p.device.name.empty()) s += ", " + p.device.name;
  if (p.device.sm_count > 0) s += fmt::format(" ({} SMs)", p.device.sm_count);
  if (p.shared_atomic_variant) s += ", shared atomics " + std::string(*p.shared_atomic_variant == OpVariant::kPopcInc ? "ATOMS.POPC.INC" : "ATOMS.ADD");
  if (p.graph && !p.graph->kernels.empty())
    s += fmt::format("; CUDA graph launch {}, one range over its {} kernel nodes (the grid is the first node's; "
                     "the time includes the gaps between nodes, so U is a lower bound; no SASS-patched counters)",
                     p.graph->graph_launch, p.graph->nodes);
  else if (p.graph)
    s += fmt::format("; CUDA graph launch {}, kernel node {} of {}", p.graph->graph_launch, p.graph->node + 1,
                     p.graph->nodes);
  return s;
}

std::string ratio(const std::optional<double>& r) { return r ? fmt::format("{:.3g}x", *r) : "-"; }

std::string comparison_value(const model::ComparisonRow& row, double v) {
  if (row.unit == "fraction") return percent(v);
  if (row.unit == "ns") return duration(v);
  return number(v);
}

std::vector<model::ComparisonRow> comparison_rows(const ReportComparison& c) {
  std::vector<model::ComparisonRow> rows = c.result.rows;
  bool has_duration = false;
  for (const auto& r : rows) has_duration |= r.unit == "ns";
  if (!has_duration && c.duration_a_ns && c.duration_b_ns) {
    model::ComparisonRow r{"measured kernel time", "ns", *c.duration_a_ns, *c.duration_b_ns, std::nullopt};
    if (r.a > 0) r.ratio = r.b / r.a;
    rows.push_back(r);
  }
  return rows;
}

const model::Finding* headline_finding(const model::KernelAnalysis& a) {
  if (const auto* f = a.find(model::FindingKind::kUtilization)) return f;
  if (const auto* f = a.find(model::FindingKind::kInsufficientData)) return f;
  return a.findings.empty() ? nullptr : &a.findings.front();
}

std::vector<const model::Finding*> other_findings(const model::KernelAnalysis& a) {
  const model::Finding* head = headline_finding(a);
  std::vector<const model::Finding*> out;
  for (const auto& f : a.findings)
    if (&f != head) out.push_back(&f);
  return out;
}

// The recommendation of the finding whose what-if the analysis recommends (ReportKernel::best_what_if),
// else the headline's.
std::string main_recommendation(const ReportKernel& k) {
  if (const auto* f = k.analysis.recommended_finding(); f && !f->recommendation.empty()) return f->recommendation;
  const auto* head = headline_finding(k.analysis);
  return head ? head->recommendation : "";
}

std::string l2_utilization(const model::KernelAnalysis& a) {
  return a.l2.evaluated ? utilization(a.l2.utilization) : "-";
}

std::string l2_cause(const model::L2Queue& q) {
  switch (q.basis) {
    case model::L2ServiceBasis::kHotAddress: return "one hot address";
    case model::L2ServiceBasis::kHotSlice: return "hot slice";
    default: return "spread";
  }
}

}  // namespace atomq::report::detail

namespace atomq::report {

std::string duration_text(std::optional<double> ns) { return detail::duration(ns); }

namespace {

// Length of the UTF-8 sequence at text[i] (2 to 4), or 0 when it is not one.
size_t utf8_sequence(const std::string& text, size_t i) {
  const auto byte = [&](size_t j) { return static_cast<unsigned char>(text[j]); };
  const unsigned char lead = byte(i);
  const size_t n = lead >= 0xC2 && lead <= 0xDF   ? 2
                   : lead >= 0xE0 && lead <= 0xEF ? 3
                   : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                  : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t j = 1; j < n; ++j)
    if ((byte(i + j) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string terminal_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    if (ch >= 0x20 && ch < 0x7F) {
      out += text[i++];
      continue;
    }
    const size_t n = ch >= 0x80 ? utf8_sequence(text, i) : 0;
    const bool c1 = n == 2 && ch == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;  // U+0080..U+009F
    if (n > 0 && !c1) {
      out.append(text, i, n);
      i += n;
    } else if (c1) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out += fmt::format("\\x{:02x}", ch);
      ++i;
    }
  }
  return out;
}

std::string atomic_units_summary(const model::KernelAnalysis& a) {
  using detail::percent;
  std::string line = "SM atomic U " + (a.evaluated ? detail::utilization(a.utilization.mean) : std::string("-"));
  if (!a.l2.evaluated)
    line += " | L2 not evaluated";
  else
    line += fmt::format(" | L2 hottest slice U {} ({}, {}{})", detail::utilization(a.l2.utilization),
                        detail::l2_cause(a.l2), enum_name(a.l2.op),
                        a.l2.op_origin == model::Origin::kAssumed ? " assumed" : "");
  if (a.dsmem.evaluated) line += " | DSMEM path U " + detail::utilization(a.dsmem.utilization);
  return line;
}

}  // namespace atomq::report
