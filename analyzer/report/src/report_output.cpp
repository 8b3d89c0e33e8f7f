// Writing a report: the format follows the file name; files are replaced atomically.
#include <cctype>

#include "atomq/common/atomic_file.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/report/report.hpp"

namespace atomq::report {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

ReportFormat report_format_for_path(const std::string& path) {
  std::string lower;
  for (char ch : path) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ends_with(lower, ".html") || ends_with(lower, ".htm")) return ReportFormat::kHtml;
  if (ends_with(lower, ".md") || ends_with(lower, ".markdown")) return ReportFormat::kMarkdown;
  if (ends_with(lower, ".csv")) return ReportFormat::kSummaryCsv;
  if (ends_with(lower, ".json")) return ReportFormat::kSummaryJson;
  // Standard output, /dev/stdout, /dev/null: text for a terminal or a pipe.
  if (path == "-" || lower.rfind("/dev/", 0) == 0) return ReportFormat::kMarkdown;
  throw ReportError(path + ": the report is written as .html or .md, its per-kernel export as .csv or .json; "
                    "name the output file so (or - for Markdown on standard output)");
}

std::string render_report(const Report& report, const std::string& path) {
  switch (report_format_for_path(path)) {
    case ReportFormat::kHtml: return render_html(report);
    case ReportFormat::kMarkdown: return render_markdown(report);
    case ReportFormat::kSummaryCsv: return render_summary_csv(report);
    case ReportFormat::kSummaryJson: return render_summary_json(report);
  }
  throw ReportError(path + ": unknown report format");
}

void write_report(const Report& report, const std::string& path) {
  write_file_atomically(path, render_report(report, path));
}

void write_reports(const Report& report, const std::vector<std::string>& paths) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& path : paths) files.emplace_back(path, render_report(report, path));
  write_files_atomically(files);  // all or none
}

}  // namespace atomq::report
