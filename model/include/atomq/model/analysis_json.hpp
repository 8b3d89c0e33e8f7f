// Versioned JSON of the model's results, for the report and for tests of recorded runs:
// {"format": "atomq.analysis", "version": 1, ...} and "atomq.comparison" (docs/model.md).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/comparison.hpp"
#include "atomq/model/service_fit.hpp"

namespace atomq::model {

inline constexpr const char* kAnalysisFormat = "atomq.analysis";
inline constexpr const char* kComparisonFormat = "atomq.comparison";
inline constexpr int kAnalysisVersion = 1;

nlohmann::json analysis_json(const KernelAnalysis& analysis);

// A stored analysis that is not the JSON analysis_json writes: what() names the source and field.
class AnalysisJsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The analysis analysis_json wrote, read back (analysis_reader.cpp): analysis_json of the result
// is `doc`. `source` names where it came from in errors.
KernelAnalysis analysis_from_json(const nlohmann::json& doc, const std::string& source);
std::string analysis_to_json(const KernelAnalysis& analysis);  // the same, as pretty text
std::string comparison_to_json(const KernelComparison& comparison);

// One row per table cell: the measured S next to the fitted S and the relative residual,
// then one summary row per op variant with the fitted coefficients.
std::string fit_residuals_csv(const calibration::ServiceTable& table, const ServiceFit& fit);

}  // namespace atomq::model
