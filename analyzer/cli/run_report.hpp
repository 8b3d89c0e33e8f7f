// Evaluate the model on collected profiles, write the "atomq.analysis_run" document
// atomically to `output` and print the one-line-per-kernel summary.
#pragma once

#include <string>
#include <vector>

#include "atomq/analyzer/analysis_run.hpp"
#include "atomq/model/kernel_profile.hpp"

namespace atomq::cli {

int write_and_print_run(const std::string& output, const std::string& table_path, analyzer::RunInfo info,
                        const std::vector<model::KernelProfile>& profiles);

}  // namespace atomq::cli
