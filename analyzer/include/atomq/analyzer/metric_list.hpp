// The counters atomq collects, declared once as data: every collector (in-process, injection)
// and the ncu export hint (`atomq metrics`) use this list.
#pragma once

#include <string>
#include <vector>

namespace atomq::analyzer {

struct MetricSpec {
  std::string name;         // full name with rollup, as CUPTI and ncu accept it
  std::string meaning;
  std::string model_input;  // which model input it feeds
  bool required = true;     // false: only for a secondary finding (printed by `atomq metrics --list`)
};

const std::vector<MetricSpec>& atomq_metrics();
std::vector<std::string> atomq_metric_names();
// The counters of "Lanes per sector" (docs/model.md), collected only when asked
// (`--sector-counters`): they cost GH100 a fifth replay pass, and every committed recording holds
// the default list (tests/unit/recordings_current_test.cpp). The request port's four counters are
// in the default list: beside it they take no replay pass of their own on GH100.
const std::vector<MetricSpec>& sector_metrics();
// The default list, with the sector counters after it when asked.
std::vector<MetricSpec> collector_metrics(bool sector_counters);
std::vector<std::string> collector_metric_names(bool sector_counters);
// "a,b,c": the argument of `ncu --metrics` that exports what `atomq analyze --ncu-csv` reads.
std::string ncu_metrics_argument(bool sector_counters = false);

}  // namespace atomq::analyzer
