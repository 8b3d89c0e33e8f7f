// atomq table show|validate|csv|fit: inspect a service-time table (no GPU needed).
#include <fmt/format.h>

#include <memory>

#include "atomq/common/atomic_file.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/model/analysis_json.hpp"
#include "atomq/model/service_fit.hpp"
#include "commands.hpp"
#include "terminal.hpp"

namespace atomq::cli {

namespace {

namespace cal = atomq::calibration;

struct TableArgs {
  std::string path;
  std::string csv_out;
  bool l2 = false;
};

int run_show(const TableArgs& a) {
  print_table_summary(stdout, cal::load_service_table(a.path));
  return kExitOk;
}

int run_validate(const TableArgs& a) {
  const cal::ServiceTable t = cal::load_service_table(a.path);
  fmt::print("{}: valid atomq service table v{} ({} cells, {} controls, {} L2 cells, {} {})\n",
             a.path, t.version, t.cells.size(), t.controls.size(), t.l2.cells.size(),
             t.provenance.device.name, t.provenance.device.chip);
  return kExitOk;
}

int run_csv(const TableArgs& a) {
  const cal::ServiceTable t = cal::load_service_table(a.path);
  const std::string csv = a.l2 ? cal::service_table_l2_csv(t) : cal::service_table_csv(t);
  if (a.csv_out.empty() || a.csv_out == "-")
    fmt::print("{}", csv);
  else
    write_file_atomically(a.csv_out, csv);
  return kExitOk;
}

// The least-squares fit of the table (model/service_fit.hpp): its parameters and residuals per
// op variant, and optionally every cell's measured S next to the fit.
int run_fit(const TableArgs& a) {
  const cal::ServiceTable t = cal::load_service_table(a.path);
  const model::ServiceFit fit = model::fit_service_model(t);
  fmt::print("S_fit(n, k) = max(w0 + w1 k, max(L_floor, l0 + l1 k) / n)   ({})\n", a.path);
  fmt::print("{:<9} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9}\n", "variant", "cells", "w0", "w1",
             "l0", "l1", "L_floor", "RMS rel", "max |rel|");
  for (const auto& v : fit.variants)
    fmt::print("{:<9} {:>6} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.3f} {:>8.2f} {:>8.1f}% {:>8.1f}%\n",
               enum_name(v.variant), v.cells, v.saturation.intercept, v.saturation.slope,
               v.latency.intercept, v.latency.slope, v.latency_floor, 100.0 * v.rms_relative_residual,
               100.0 * v.max_abs_relative_residual);
  if (!a.csv_out.empty()) {
    const std::string csv = model::fit_residuals_csv(t, fit);
    if (a.csv_out == "-")
      fmt::print("{}", csv);
    else
      write_file_atomically(a.csv_out, csv);
  }
  return kExitOk;
}

}  // namespace

void add_table_command(CLI::App& app, CommandRunner& selected) {
  auto args = std::make_shared<TableArgs>();
  auto* table = app.add_subcommand("table", "inspect a service-time table file");
  table->require_subcommand(1);
  auto* show = table->add_subcommand("show", "provenance and a summary of the key cells");
  show->add_option("file", args->path, "table JSON")->required();
  show->callback([&selected, args] { selected = [args] { return run_show(*args); }; });
  auto* validate = table->add_subcommand("validate", "check a table file, naming any bad field");
  validate->add_option("file", args->path, "table JSON")->required();
  validate->callback([&selected, args] { selected = [args] { return run_validate(*args); }; });
  auto* csv = table->add_subcommand("csv", "export a table as CSV");
  csv->add_option("file", args->path, "table JSON")->required();
  csv->add_option("-o,--output", args->csv_out, "CSV file (default stdout)");
  csv->add_flag("--l2", args->l2, "the L2 section's cells instead of the shared-atomic grid");
  csv->callback([&selected, args] { selected = [args] { return run_csv(*args); }; });
  auto* fit = table->add_subcommand("fit", "the least-squares service-time fit and its residuals");
  fit->add_option("file", args->path, "table JSON")->required();
  fit->add_option("--residuals", args->csv_out, "write every cell's S, fit and residual as CSV (- for stdout)");
  fit->callback([&selected, args] { selected = [args] { return run_fit(*args); }; });
}

}  // namespace atomq::cli
