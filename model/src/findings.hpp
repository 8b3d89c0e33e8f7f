// The findings of the model's evaluation of one kernel (analysis.cpp): private to the model
// library. Each adds at most one Finding to the analysis, in the order the report shows them.
#pragma once

#include <string>
#include <vector>

#include "atomq/model/analysis.hpp"
#include "atomq/model/rules.hpp"
#include "atomq/model/service_time.hpp"

namespace atomq::model::detail {

// Marks the analysis as not evaluable; each detail names the counter or field at fault.
void add_insufficient_data(KernelAnalysis& a, std::vector<std::string> details);

// When the calibration table was measured on another chip than the kernel ran on.
void add_table_mismatch(KernelAnalysis& a);

// Global atomics concentrated on L2: also applies to a kernel without shared atomics.
void add_global_hot_spot(KernelAnalysis& a, const Rules& r);

// All findings of an evaluated kernel (utilization and service time filled in): the class
// statement first, then the calibrated range, then each bottleneck rule.
void add_evaluated_findings(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r);

}  // namespace atomq::model::detail
