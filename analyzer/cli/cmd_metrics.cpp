// atomq metrics: the counters atomq reads, as an ncu --metrics argument or as a table
// validated against a chip (host-only: no GPU needed; the check on a chip needs CUPTI).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#if ATOMQ_WITH_CUDA
#include "atomq/analyzer/metric_config.hpp"
#endif
#include "atomq/analyzer/metric_list.hpp"
#include "commands.hpp"
#if ATOMQ_FORWARD_TO_GPU_BINARY
#include "gpu_forward.hpp"
#endif
#include "terminal.hpp"

namespace atomq::cli {

namespace {

struct MetricsArgs {
  bool list = false;
  bool list_chips = false;
  std::string chip = "GH100";
  bool sector_counters = false;  // the list with the sector counters (analyze --sector-counters)
};

#if ATOMQ_WITH_CUDA
// The chip as CUPTI spells it, whatever the case the user typed; a usage error when unknown.
std::string known_chip(const std::string& typed) {
  std::string upper = typed;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
  for (const std::string& chip : analyzer::supported_chips()) {
    std::string chip_upper = chip;
    std::transform(chip_upper.begin(), chip_upper.end(), chip_upper.begin(),
                   [](unsigned char ch) { return std::toupper(ch); });
    if (chip_upper == upper) return chip;
  }
  throw UsageError("--chip " + typed + ": not a chip CUPTI knows; see atomq metrics --list-chips");
}

int list_metrics(const std::string& typed_chip, bool sector_counters) {
  const std::string chip = known_chip(typed_chip);
  const auto specs = analyzer::collector_metrics(sector_counters);
  const auto names = analyzer::collector_metric_names(sector_counters);
  const auto checks = analyzer::validate_metrics(chip, names);
  int invalid = 0;
  fmt::print("{:<58} {:<26} {:<9} {:<14} {}\n", "metric", "model input", "needed", "on " + chip, "meaning");
  for (size_t i = 0; i < checks.size(); ++i) {
    const auto& spec = specs[i];
    fmt::print("{:<58} {:<26} {:<9} {:<14} {}\n", spec.name, spec.model_input,
               spec.required ? "required" : "optional", checks[i].valid ? "ok" : "NOT AVAILABLE", spec.meaning);
    invalid += checks[i].valid ? 0 : 1;
  }
  if (invalid > 0) {
    fmt::print(stderr, "atomq: {} metric(s) not available on {}\n", invalid, chip);
    return kExitError;
  }
  const analyzer::MetricConfig config(chip, names);
  fmt::print("\n{} metrics, {} replay pass(es) per kernel on {}\n", names.size(), config.passes(), chip);
  fmt::print("export for offline analysis:\n  ncu --csv --print-units base --metrics {} ./app > app.csv\n",
             analyzer::ncu_metrics_argument(sector_counters));
  return kExitOk;
}

int list_chips() {
  for (const std::string& chip : analyzer::supported_chips()) fmt::print("{}\n", chip);
  return kExitOk;
}
#elif ATOMQ_FORWARD_TO_GPU_BINARY
int list_metrics(const std::string&, bool) { return run_gpu_binary("`atomq metrics --list`"); }
int list_chips() { return run_gpu_binary("`atomq metrics --list-chips`"); }
#else
int needs_cupti(const char* what) {
  fmt::print(stderr, "atomq: metrics {} asks CUPTI: this atomq was built host-only (without the CUDA toolkit)\n",
             what);
  return kExitNoGpu;
}
int list_metrics(const std::string&, bool) { return needs_cupti("--list"); }
int list_chips() { return needs_cupti("--list-chips"); }
#endif

int run_metrics(const MetricsArgs& a) {
  if (a.list_chips) return list_chips();
  if (a.list) return list_metrics(a.chip, a.sector_counters);
  fmt::print("{}\n", analyzer::ncu_metrics_argument(a.sector_counters));
  return kExitOk;
}

}  // namespace

void add_metrics_command(CLI::App& app, CommandRunner& selected) {
  auto [sub, args] = add_command(app, selected, "metrics", "the counters atomq reads (an ncu --metrics argument)",
                                 run_metrics);
  sub->add_flag("--list", args->list, "table with the model input each feeds, checked on --chip, and the pass count");
  sub->add_flag("--list-chips", args->list_chips, "the chip names --chip takes (CUPTI's list)");
  sub->add_flag("--sector-counters", args->sector_counters,
                "with the counters `atomq analyze --sector-counters` adds (one more replay pass)");
  sub->add_option("--chip", args->chip, "CUPTI chip name to check against, any case (default GH100)");
}

}  // namespace atomq::cli
