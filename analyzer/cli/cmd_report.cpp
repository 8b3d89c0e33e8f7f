// atomq report RUN.json [MORE.json ...] -o report.html|report.md [--compare BASE.json]:
// evaluates the recorded profiles with the current model and writes the bottleneck report.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "run_report.hpp"
#include "terminal.hpp"
#include "atomq/common/atomic_file.hpp"
#include "atomq/report/report.hpp"
#include "atomq/run_document/run_document.hpp"
#include "commands.hpp"

namespace atomq::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> runs;
  std::vector<std::string> outputs;
  std::vector<std::string> baseline;
  std::vector<std::string> pairs;
  std::string table;
  std::string title = "atomq bottleneck report";
  bool quiet = false;
};

std::pair<std::string, std::string> split_pair(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw report::ReportError("--pair \"" + text + "\": expected LABEL_A:LABEL_B (labels as in the report's summary)");
  return {text.substr(0, colon), text.substr(colon + 1)};
}

int run_report(const ReportArgs& args) {
  // Refuse an unusable output name before any work.
  std::vector<std::string> inputs = args.runs;
  inputs.insert(inputs.end(), args.baseline.begin(), args.baseline.end());
  if (!args.table.empty()) inputs.push_back(args.table);
  for (const auto& out : args.outputs) {
    try {
      refuse_output_among_inputs(out, inputs);
    } catch (const std::runtime_error& e) {
      throw report::ReportError(e.what());
    }
    if (report::report_format_for_path(out) == report::ReportFormat::kHtml && !report::html_supported())
      throw report::ReportError(out + ": this atomq was built without Chart.js (libjs-chart.js); write .md or rebuild");
  }
  report::ReportRequest request;
  request.title = args.title;
  try {
    for (const auto& path : args.runs) request.runs.push_back(report::load_run_document(path));
    for (const auto& path : args.baseline) request.baseline_runs.push_back(report::load_run_document(path));
  } catch (const report::RunDocumentError& e) {
    fmt::print(stderr, "atomq: not a usable run document: {}\n", report::terminal_text(e.what()));
    return kExitError;
  }
  for (const auto& p : args.pairs) request.pairs.push_back(split_pair(p));

  const model::SelectedTable table = select_report_table(request, args.table);

  const report::Report built = write_reports(request, args.outputs);
  // A report on standard output (-o -) is alone there: the summary goes to stderr.
  FILE* chatter = std::count(args.outputs.begin(), args.outputs.end(), "-") ? stderr : stdout;
  if (!args.quiet) fmt::print(chatter, "{}\n", report::render_terminal_summary(built));
  fmt::print(chatter, "table: {} ({})\n", table.path, table.reason);
  print_written(chatter, args.outputs);
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandRunner& selected) {
  auto [sub, args] = add_command(app, selected, "report",
                                 "bottleneck report (HTML with charts, or Markdown) from run documents",
                                 &run_report);
  sub->add_option("runs", args->runs, "run documents written by `atomq analyze` or `atomq hist --analyze`")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("-o,--output", args->outputs,
                  "report file: .html (self-contained, charts), .md, or the per-kernel export .csv / .json "
                  "(docs/report.md), - for standard output (Markdown); repeatable")
      ->required();
  sub->add_option("--compare", args->baseline, "baseline run document(s): kernels matched by name, what changed")
      ->check(CLI::ExistingFile);
  sub->add_option("--pair", args->pairs, "put two kernels side by side: LABEL_A:LABEL_B (default: the first two)");
  sub->add_option("--table", args->table, "service-time table (default: calibrated or bundled for the runs' chip)");
  sub->add_option("--title", args->title, "report title")->capture_default_str();
  sub->add_flag("-q,--quiet", args->quiet, "no terminal summary");
}

}  // namespace atomq::cli
