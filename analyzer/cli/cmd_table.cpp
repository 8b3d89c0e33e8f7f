// atomq table show|validate|csv|fit: inspect a service-time table (no GPU needed).
#include <fmt/format.h>

#include <memory>

#include "atomq/common/atomic_file.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/model/analysis_json.hpp"
#include "atomq/model/cas_retry_law.hpp"
#include "atomq/model/l2_law.hpp"
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

// Before any work: the output is not the table.
void refuse_csv_over_the_table(const TableArgs& a) {
  if (!a.csv_out.empty()) refuse_output_among_inputs(a.csv_out, {a.path});
}

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
  refuse_csv_over_the_table(a);
  const cal::ServiceTable t = cal::load_service_table(a.path);
  const std::string csv = a.l2 ? cal::service_table_l2_csv(t) : cal::service_table_csv(t);
  if (a.csv_out.empty())
    fmt::print("{}", csv);
  else
    write_file_atomically(a.csv_out, csv);
  return kExitOk;
}

// The least-squares fit of the table (model/service_fit.hpp): its parameters and residuals per
// op variant, and optionally every cell's measured S next to the fit.
int run_fit(const TableArgs& a) {
  refuse_csv_over_the_table(a);
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
    write_file_atomically(a.csv_out, model::fit_residuals_csv(t, fit));
  }
  return kExitOk;
}

// The L2 law fitted on the table's L2 cells (model/l2_law.hpp): its terms, the share curve,
// the latency, the residual statistics, and optionally every saturated cell's residual.
int run_law(const TableArgs& a) {
  refuse_csv_over_the_table(a);
  const cal::ServiceTable t = cal::load_service_table(a.path);
  const model::L2Law law = model::fit_l2_law(t.l2);
  if (!law.fitted) {
    fmt::print(stderr, "atomq: {}: the L2 law is not fitted: {}\n", a.path, law.not_fitted_reason);
    return kExitError;
  }
  fmt::print("S(op, s, m) = (max(a_op, b_op s)^p + (lambda_op / m)^p)^(1/p),  p = {:g}   ({})\n", law.exponent,
             a.path);
  fmt::print("{:<16} {:>6} {:>10} {:>10} {:>10}\n", "op", "cells", "a_op", "b_op", "lambda_op");
  for (const auto& o : law.ops)
    fmt::print("{:<16} {:>6} {:>10.3f} {:>10.3f} {:>10.3f}\n", enum_name(o.op), o.cells, o.request_cycles,
               o.sector_cycles, o.chain_cycles);
  fmt::print("residuals over {} saturated cells: median |rel| {:.1f}%, max |rel| {:.1f}%\n", law.residuals.size(),
             100.0 * law.median_abs_residual, 100.0 * law.max_abs_residual);
  const model::L2LawInputBound& b = law.input_bound;
  fmt::print("no law of (op, sectors, chains) reaches a max |rel| below {:.1f}% on these cells: {} at {:g} sectors "
             "and {:g} chains measured {:.3f} cycles ({}) and {:.3f} ({}); one value per such group errs by a median "
             "|rel| {:.1f}%\n",
             100.0 * b.max_abs_residual, enum_name(b.op), b.sectors, b.chains, b.fastest_cycles, b.fastest_pattern,
             b.slowest_cycles, b.slowest_pattern, 100.0 * b.median_abs_residual);
  fmt::print("hottest share (over one line's {:.3f}) -> hot lines at the slice:", law.one_line_share);
  for (const auto& q : law.share_curve) fmt::print(" {:.3f}->{:.1f}", q.share, q.chains);
  fmt::print("\n");
  if (law.latency_alone_ns)
    fmt::print("global atomic round trip: {:.0f} ns alone, {:.0f} ns at {:g} in flight per SM\n",
               *law.latency_alone_ns, law.latency_loaded_ns.value_or(0), law.latency_loaded_in_flight_per_sm);
  if (!law.round_trip.empty()) {
    fmt::print("round trip of dependent chains (op lanes x warps per SM: in flight -> ns):\n");
    for (const auto& q : law.round_trip)
      fmt::print("  {:<14} {:>2} x {:>2}: {:>5g} -> {:.0f}\n", enum_name(q.op), q.lanes, q.warps_per_sm, q.in_flight_per_sm,
                 q.latency_ns);
  }
  if (!a.csv_out.empty()) {
    std::string csv = "op,pattern,sectors_per_request,chains,measured_cycles,law_cycles,relative_residual\n";
    for (const auto& r : law.residuals)
      csv += fmt::format("{},{},{:.4f},{:.3f},{:.4f},{:.4f},{:.4f}\n", enum_name(r.op), r.pattern, r.sectors, r.chains,
                         r.measured, r.predicted, r.relative());
    write_file_atomically(a.csv_out, csv);
  }
  return kExitOk;
}

// The CAS retry law fitted on the table's retry sweep (model/cas_retry_law.hpp): its terms and
// every point's time predicted from its own attempts and updates, as a Markdown table.
int run_retry(const TableArgs& a) {
  const cal::ServiceTable t = cal::load_service_table(a.path);
  const model::CasRetryLaw law = model::fit_cas_retry_law(t.l2);
  if (!law.fitted) {
    fmt::print(stderr, "atomq: {}: the CAS retry law is not fitted: {}\n", a.path, law.not_fitted_reason);
    return kExitError;
  }
  fmt::print("t(m) = max(L, a(m) S): S {:.3f} L2 cycles (one-address atom.cas.u32), L {:.0f} L2 cycles on one word, "
             "{:.0f} on the multi-word series, L2 clock {:.0f} MHz\n",
             law.service_cycles, law.round_trip_cycles, law.far_round_trip_cycles, law.l2_clock_mhz);
  fmt::print("one word: median |rel| {:.1f}%, max {:.1f}% over {} points\n", 100.0 * law.median_abs_residual,
             100.0 * law.max_abs_residual, law.one_word.size());
  fmt::print("several words (the hottest slice's words together, round trip L of the multi-word series): median "
             "|rel| {:.1f}%, max {:.1f}% over {} points\n\n",
             100.0 * law.several_words_median_abs_residual, 100.0 * law.several_words_max_abs_residual,
             law.several_words.size());
  fmt::print("| warps | lanes | words | at the hottest slice | lanes per word | attempts per update | measured (us) | "
             "law (us) | residual |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto* rows : {&law.one_word, &law.several_words})
    for (const model::CasRetryResidual& r : *rows)
      fmt::print("| {} | {} | {} | {:.1f} | {:.0f} | {:.1f} | {:.1f} | {:.1f} | {:+.1f}% |\n", r.warps, r.active_lanes,
                 r.addresses, r.words_at_hottest_slice, r.lanes_per_word, r.attempts_per_update, r.measured_ns / 1e3,
                 r.predicted_ns / 1e3, 100.0 * r.relative());
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
  csv->add_option("-o,--output", args->csv_out, "CSV file (default and -: standard output)");
  csv->add_flag("--l2", args->l2, "the L2 section's cells instead of the shared-atomic grid");
  csv->callback([&selected, args] { selected = [args] { return run_csv(*args); }; });
  auto* fit = table->add_subcommand("fit", "the least-squares service-time fit and its residuals");
  fit->add_option("file", args->path, "table JSON")->required();
  fit->add_option("--residuals", args->csv_out, "write every cell's S, fit and residual as CSV (- for stdout)");
  fit->callback([&selected, args] { selected = [args] { return run_fit(*args); }; });
  auto* law = table->add_subcommand("law", "the L2 law fitted on the table's L2 cells, and its residuals");
  law->add_option("file", args->path, "table JSON")->required();
  law->add_option("--residuals", args->csv_out, "write every saturated cell's S, law and residual as CSV (- for stdout)");
  law->callback([&selected, args] { selected = [args] { return run_law(*args); }; });
  auto* retry = table->add_subcommand("retry", "the CAS retry law fitted on the table's retry sweep, point by point");
  retry->add_option("file", args->path, "table JSON")->required();
  retry->callback([&selected, args] { selected = [args] { return run_retry(*args); }; });
}

}  // namespace atomq::cli
