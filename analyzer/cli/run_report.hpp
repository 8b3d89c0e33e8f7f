// Shared by the commands that analyze or report: evaluate the model on collected profiles and
// write the run document; choose the table a report is evaluated with.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "atomq/run_document/run_document.hpp"
#include "atomq/model/table_selection.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/report/report.hpp"

namespace atomq::cli {

// Evaluate the model on collected profiles, write the "atomq.analysis_run" document
// atomically to `output` and print the one-line-per-kernel summary.

// `evaluated`, when given, gets how many launches the model could evaluate.
int write_and_print_run(const std::string& output, const std::string& table_path, run::RunInfo info,
                        const std::vector<model::KernelProfile>& profiles, size_t* evaluated = nullptr);

// The tables for a report: `table_arg` if given, else the one select_table chooses for the GPU of
// the first run with profiles; a GPU's own table (device_tables) and another board's
// (board_tables) beside it. Prints their warnings and fills the request's tables.
model::SelectedTable select_report_table(report::ReportRequest& request, const std::string& table_arg);

// Builds the report once and writes it to every output (.md or .html).
report::Report write_reports(const report::ReportRequest& request, const std::vector<std::string>& outputs);
// "wrote FILE" lines (none for "-", standard output).
void print_written(FILE* stream, const std::vector<std::string>& outputs);

}  // namespace atomq::cli
