// Number and text formatting shared by the Markdown, HTML and terminal renderers, so the
// three show the same figures.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "atomq/report/report.hpp"

namespace atomq::report::detail {

std::string percent(double fraction);                 // "77%"
std::string share(double fraction);                   // "77%", "4.2%", "0.0%"
std::string utilization(double fraction);             // "77%", above 100% "100%+"
std::string number(double value);                     // 4 significant digits, thousands grouped
std::string duration(std::optional<double> ns);       // always µs, 3 significant digits: "1,061 µs", "21.1 µs", "-"
std::string speedup(double factor);                   // 3 significant digits: "2.41x", "14.3x", "242x"
// "1.25x to 14.3x" (full overlap to no overlap), or one figure where the two ends meet.
std::string gain_range(double low, double high);
// A what-if's expected gain: gain_range(WhatIf::gain_low, gain_high), one figure without an
// interval. Every rendering shows a what-if's gain with this.
std::string gain_interval(const model::WhatIf& w);
// "predicted for \"no conflicts\": 1.25x to 14.3x; measured 2.25x: inside the interval"
std::string predicted_against_measured(const model::PredictedGain& p);
// "B is 2.41x faster" / "B is 3.10x slower" from the two measured times.
std::string b_against_a(double a_ns, double b_ns);
std::string evidence_value(const model::Evidence& e); // value with its unit, fractions as %
std::string launch_summary(const model::KernelProfile& p);  // "grid 264 x block 256, NVIDIA H200"
std::string ratio(const std::optional<double>& r);     // "0.25x" or "-"
std::string comparison_value(const model::ComparisonRow& row, double v);

// The model's rows, plus the measured kernel time from the profiles when the model has none.
std::vector<model::ComparisonRow> comparison_rows(const ReportComparison& c);

std::string l2_utilization(const model::KernelAnalysis& a);  // "98%" or "-"
std::string l2_cause(const model::L2Queue& q);                 // "one hot address", "hot slice", "spread"

// The headline of a kernel: its class statement, or why it could not be evaluated.
const model::Finding* headline_finding(const model::KernelAnalysis& a);
// Findings other than the headline, in the model's order.
std::vector<const model::Finding*> other_findings(const model::KernelAnalysis& a);
// What to do first: the recommendation of the finding with the best what-if, else the headline's.
std::string main_recommendation(const ReportKernel& k);

}  // namespace atomq::report::detail
