// The bottleneck report: run documents evaluated with the current model on the service-time
// table chosen for each board, rendered as Markdown (plain tables) or as one self-contained HTML
// file whose charts are drawn by Chart.js, inlined at build time so the page opens offline.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/comparison.hpp"
#include "atomq/run_document/run_document.hpp"

namespace atomq::report {

using run::RunDocument;
using run::RunDocumentError;
using run::load_run_document;

// A bad report request (unknown kernel label in a pair, no kernels at all, no HTML support).
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReportRequest {
  std::string title = "atomq bottleneck report";
  std::vector<RunDocument> runs;
  std::vector<RunDocument> baseline_runs;  // --compare: kernels matched to runs by name
  calibration::ServiceTable table;
  std::string table_path, table_origin;
  // GPUs with a table of their own (calibrate --all-devices), by device UUID: their kernels
  // are evaluated with it instead of `table`.
  std::map<std::string, calibration::ServiceTable> device_tables;
  // Kernels of another board than the first run's, by GPU name: the table chosen for that board
  // (select_report_table), with which they are evaluated instead of `table` (a GPU's own table
  // in device_tables comes first). The report names each one its kernels used.
  struct BoardTable {
    calibration::ServiceTable table;
    std::string path, origin;  // as table_path, table_origin
  };
  std::map<std::string, BoardTable> board_tables;
  // Kernel labels to put side by side (A, B). Empty: the first two kernels, if any.
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> notes;  // shown at the top, e.g. that recorded data is replayed
  // The build whose stored analyses may stand (run::stored_analyses_unusable): version and
  // commit; empty: this build. Tests name one to take either path.
  std::string build_version, build_commit;
};

struct ReportKernel {
  std::string label;  // unique within the report: the run label, plus the kernel when needed
  std::string run_label;
  model::KernelProfile profile;
  model::KernelAnalysis analysis;
  bool analysis_stored = false;  // read from the run document, not evaluated again (report_data.cpp)
  std::optional<double> duration_ns;
  // The analysis' recommended what-if (KernelAnalysis::recommended_what_if): the best predicted
  // gain among the what-ifs that cannot lose; its finding is analysis.recommended_finding().
  std::optional<model::WhatIf> best_what_if;
};

struct ReportComparison {
  std::string title;
  std::string label_a, label_b;
  model::KernelComparison result;  // its summary names the kernels by their report labels
  // Measured kernel times from the profiles, shown even where the model's rows lack them
  // (a kernel without shared atomics has no model inputs).
  std::optional<double> duration_a_ns, duration_b_ns;
};

// One kernel of one run, its launches taken together: what a reader ranks kernels by.
struct KernelSummary {
  // Short kernel name (no namespaces, template arguments, parameters); "OP: name" when the
  // launches ran inside an NVTX range (`op`): a kernel's launches are then grouped by op.
  std::string name;
  std::string op;         // the innermost NVTX range open at the launches (PyTorch's op), "" when none
  std::string kernel;     // the profile's full kernel name
  std::string run_label;
  std::vector<std::size_t> launches;  // indices into Report::kernels, in launch order
  std::size_t slowest = 0;            // the launch with the longest measured time (Report::kernels)
  std::optional<double> total_ns, median_ns;  // measured kernel time over the launches
  double gpu_time_share = 0;    // total_ns over all measured kernel time in the report's runs
  // What the best what-if of each launch saves, summed: total x (1 - 1 / predicted gain).
  double time_at_stake_ns = 0;
};

// One kernel's launches by one rank of a multi-process run (a kernel that ran on two ranks
// or more; rank_comparison.cpp).
struct RankRow {
  std::string run_label;
  std::string name;    // short kernel name
  std::string kernel;  // the profile's full kernel name
  int rank = 0;
  std::size_t launches = 0;
  std::optional<double> median_ns;
  std::size_t slowest = 0;  // index into Report::kernels
};

// S(n) at one (variant, pattern, e, c) slice of the table, exactly as calibrated.
struct ServiceCurve {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (n, S)
};

struct Report {
  std::string title;
  std::vector<std::string> notes;
  std::string table_path, table_origin;
  calibration::Provenance table_provenance;
  std::vector<ReportKernel> kernels;
  // The runs' kernels, the most time at stake first (then the most measured time).
  std::vector<KernelSummary> summaries;
  // One line per top kernel, the largest time at stake first: the unit that binds it, why,
  // the fix and what it is predicted to save; the slowest kernel when nothing is at stake.
  std::vector<std::string> headlines;
  std::vector<RankRow> ranks;                 // per-rank rows of kernels that ran on several ranks
  std::vector<std::string> rank_findings;     // load imbalance across ranks (also among the headlines)
  std::vector<ReportKernel> baseline_kernels;
  std::vector<ReportComparison> comparisons;  // --compare pairs first, then requested pairs
  std::vector<std::string> unmatched;         // --compare kernels found on one side only
  std::vector<std::string> extra_launches;    // --compare: matched kernels launched more often on one side
  std::vector<ServiceCurve> service_curves;
  int service_curve_lanes = 0;                // e of the plotted slices
  std::vector<std::string> runs;              // one line per run: label, command, source, build
};

// Evaluates every profile with the current model; throws ReportError on a bad request.
Report build_report(const ReportRequest& request);

// The launches of each kernel grouped by rank, and the ranks whose launches take longer than
// another rank's beyond the noise.
std::vector<RankRow> rank_rows(const std::vector<ReportKernel>& kernels);
std::vector<std::string> rank_findings(const std::vector<RankRow>& rows, const std::vector<ReportKernel>& kernels);

std::string render_markdown(const Report& report);
// Throws ReportError when this build has no plotting library embedded (see html_supported).
std::string render_html(const Report& report);
bool html_supported();
// A few lines per kernel and comparison for the terminal.
std::string render_terminal_summary(const Report& report);

// The flat per-kernel export, one row per KernelSummary (ranked), the same columns in both:
// CSV (RFC 4180, a header row, empty cells where a figure does not exist) and JSON
// ({"format": "atomq.kernel_summary", "version": 1, "columns": [...], "kernels": [{...}]}).
std::string render_summary_csv(const Report& report);
std::string render_summary_json(const Report& report);
// The export's columns: (name, meaning), in order.
std::vector<std::pair<std::string, std::string>> summary_columns();

enum class ReportFormat { kHtml, kMarkdown, kSummaryCsv, kSummaryJson };
// From the file name: .html/.htm, .md/.markdown, .csv or .json (the per-kernel export);
// anything else is a ReportError.
ReportFormat report_format_for_path(const std::string& path);
// The text in the format the path asks for.
std::string render_report(const Report& report, const std::string& path);
// Renders in the format the path asks for and writes the file atomically.
void write_report(const Report& report, const std::string& path);
// Every output rendered before any is written: a failure leaves none half done.
void write_reports(const Report& report, const std::vector<std::string>& paths);

// Both atomic queues of a kernel in one line, e.g. "SM atomic U 3% | L2 hottest slice U 98%
// (one hot address, red.add.u32)"; the L2 part says when it was not evaluated.
std::string atomic_units_summary(const model::KernelAnalysis& a);

// The report's kernels grouped per run and kernel, ranked by time at stake.
std::vector<KernelSummary> summarize_kernels(const std::vector<ReportKernel>& kernels);
// The op of a launch from its open NVTX ranges: the innermost, without PyTorch's ", seq = ..."
// fields ("" when none is open).
std::string nvtx_op(const std::vector<std::string>& ranges);
// The headline lines for the top kernels of `summaries` (at most max_lines).
std::vector<std::string> headline_lines(const std::vector<KernelSummary>& summaries,
                                        const std::vector<ReportKernel>& kernels, std::size_t max_lines);

// A kernel's name as two tools that spell it differently both give it: no return type, no
// spaces, a leading `const` of a parameter moved behind its type (ncu writes
// "f(const float *, unsigned int *)", the demangler "f(float const*, unsigned int*)").
std::string normalized_kernel_name(const std::string& full_name);

// A measured time as every report shows it: µs, 3 significant digits ("21.1 µs", "1,061 µs", "-").
std::string duration_text(std::optional<double> ns);

// Text from an input file (a kernel name, a label, a path) made safe to print on a terminal:
// control characters (C0, DEL, C1 and bytes that are not UTF-8) shown as visible escapes,
// "\x1b", "\u009b", so no escape sequence (an OSC 52 clipboard write, a colour, a cursor
// move) reaches the terminal. Printable UTF-8 is kept.
std::string terminal_text(const std::string& text);

// Short kernel name: without template arguments, parameters and namespaces.
std::string short_kernel_name(const std::string& full_name);

// "Where in the code": the kernel's atomic sites from per-instruction counts, the largest
// share of the shared unit's busy time first, at most max_rows; empty without counts. One
// table for the terminal, Markdown and HTML: the header, then one row of cells per site.
std::vector<std::string> atomic_site_header();
std::vector<std::vector<std::string>> atomic_site_rows(const model::KernelAnalysis& a, std::size_t max_rows);

}  // namespace atomq::report
