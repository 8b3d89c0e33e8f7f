// atomq metrics: the counters atomq reads, as an ncu --metrics argument or as a table
// validated against a chip (host-only: no GPU needed).
#include <fmt/format.h>

#if ATOMQ_WITH_CUDA
#include "atomq/analyzer/metric_config.hpp"
#endif
#include "atomq/analyzer/metric_list.hpp"
#include "commands.hpp"
#include "terminal.hpp"

namespace atomq::cli {

namespace {

struct MetricsArgs {
  bool list = false;
  std::string chip = "GH100";
};

int run_metrics(const MetricsArgs& a) {
  if (!a.list) {
    fmt::print("{}\n", analyzer::ncu_metrics_argument());
    return kExitOk;
  }
#if !ATOMQ_WITH_CUDA
  fmt::print(stderr, "atomq: metrics --list checks the counters on a chip with CUPTI: this atomq was built host-only\n");
  return kExitNoGpu;
#else
  const auto names = analyzer::atomq_metric_names();
  const auto checks = analyzer::validate_metrics(a.chip, names);
  int invalid = 0;
  fmt::print("{:<58} {:<26} {:<9} {:<14} {}\n", "metric", "model input", "needed", "on " + a.chip, "meaning");
  for (size_t i = 0; i < checks.size(); ++i) {
    const auto& spec = analyzer::atomq_metrics()[i];
    fmt::print("{:<58} {:<26} {:<9} {:<14} {}\n", spec.name, spec.model_input,
               spec.required ? "required" : "optional", checks[i].valid ? "ok" : "NOT AVAILABLE", spec.meaning);
    invalid += checks[i].valid ? 0 : 1;
  }
  if (invalid > 0) {
    fmt::print(stderr, "atomq: {} metric(s) not available on {}\n", invalid, a.chip);
    return kExitError;
  }
  const analyzer::MetricConfig config(a.chip, names);
  fmt::print("\n{} metrics, {} replay pass(es) per kernel on {}\n", names.size(), config.passes(), a.chip);
  fmt::print("export for offline analysis:\n  ncu --csv --print-units base --metrics {} ./app > app.csv\n",
             analyzer::ncu_metrics_argument());
  return kExitOk;
#endif
}

}  // namespace

void add_metrics_command(CLI::App& app, CommandRunner& selected) {
  auto [sub, args] = add_command(app, selected, "metrics", "the counters atomq reads (an ncu --metrics argument)",
                                 run_metrics);
  sub->add_flag("--list", args->list, "table with the model input each feeds, checked on --chip, and the pass count");
  sub->add_option("--chip", args->chip, "CUPTI chip name to check against (default GH100)");
}

}  // namespace atomq::cli
