// atomq table show|validate|csv: inspect a service-time table (no GPU needed).
#include <fmt/format.h>

#include <memory>

#include "atomq/calibration/service_table.hpp"
#include "commands.hpp"
#include "terminal.hpp"

namespace atomq::cli {

namespace {

namespace cal = atomq::calibration;

struct TableArgs {
  std::string path;
  std::string csv_out;
};

int run_show(const TableArgs& a) {
  print_table_summary(stdout, cal::load_service_table(a.path));
  return kExitOk;
}

int run_validate(const TableArgs& a) {
  const cal::ServiceTable t = cal::load_service_table(a.path);
  fmt::print("{}: valid atomq service table v{} ({} cells, {} controls, {} {})\n", a.path,
             t.version, t.cells.size(), t.controls.size(), t.provenance.gpu_name, t.provenance.chip);
  return kExitOk;
}

int run_csv(const TableArgs& a) {
  const std::string csv = cal::service_table_csv(cal::load_service_table(a.path));
  if (a.csv_out.empty() || a.csv_out == "-")
    fmt::print("{}", csv);
  else
    cal::write_file_atomically(a.csv_out, csv);
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
  csv->callback([&selected, args] { selected = [args] { return run_csv(*args); }; });
}

}  // namespace atomq::cli
