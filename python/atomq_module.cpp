// The atomq Python module: table loading, analysis of a profile, what-ifs, and run documents
// read into plain records (lists of dicts of str/float/int/bool/None) that pandas takes.
// Host-only (model, table, run document); docs/python.md describes it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "atomq/common/data_dir.hpp"
#include "atomq/version.hpp"
#include "atomq/common/enum_names.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/analysis_json.hpp"
#include "atomq/model/metric_names.hpp"
#include "atomq/model/rules.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/model/table_selection.hpp"
#include "atomq/run_document/run_document.hpp"

namespace py = pybind11;
using namespace atomq;

namespace {

// A selected table and the model built on it.
struct Table {
  model::SelectedTable selected;
  std::shared_ptr<model::ServiceTimeModel> model;
};

// A chip with neither a calibrated nor a bundled table is a ValueError naming it: the CLI falls
// back to the GH100 table with a warning, which a script would not see.
Table load_table(const std::string& path, const std::string& chip, const std::string& gpu) {
  Table t;
  t.selected = model::select_table(path, chip, gpu);
  if (path.empty() && !chip.empty() && t.selected.origin == "bundled" &&
      t.selected.table.provenance.device.chip != chip)
    throw py::value_error("no calibrated or bundled table for chip " + chip + " (bundled: " +
                          t.selected.table.provenance.device.chip + "): pass path=TABLE, or run `atomq calibrate` "
                          "on that GPU");
  t.model = std::make_shared<model::ServiceTimeModel>(t.selected.table);
  return t;
}

py::object json_to_python(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

// `rules`: a dict of overrides as apply_rules_json reads them (thresholds, "terms_off"); a bad
// one is a ValueError naming its key.
py::object analyze_profile(const model::KernelProfile& profile, const Table& table, const py::object& rules) {
  model::Rules r = model::default_rules();
  if (!rules.is_none()) {
    const std::string text = py::module_::import("json").attr("dumps")(rules).cast<std::string>();
    if (const std::string error = model::apply_rules_json(text, r); !error.empty()) throw py::value_error(error);
  }
  return json_to_python(model::analysis_to_json(model::analyze(profile, *table.model, r)));
}

// One argument of what_if within its physical range, else ValueError naming it (as the CLI
// names a bad option): n > 0 warps, 1 <= e <= 32 lanes, 0 <= c <= 1, 1 <= k <= 64 wavefronts,
// instruction_factor > 0. NaN and infinities are refused.
void check_argument(const char* name, std::optional<double> v, double low, double high, bool low_open,
                    const char* meaning) {
  if (!v) return;
  if (std::isfinite(*v) && (low_open ? *v > low : *v >= low) && *v <= high) return;
  std::ostringstream text;
  text << "what_if: " << name << " = " << *v << ": expected " << meaning << ", ";
  if (low_open) text << "more than " << low;
  else text << low << " to " << high;
  throw py::value_error(text.str());
}

void check_what_if_arguments(std::optional<double> n, std::optional<double> e, std::optional<double> c,
                             std::optional<double> k, double instruction_factor) {
  constexpr double kLargest = 1e12;  // beyond any count of warps or instructions
  check_argument("n", n, 0, kLargest, true, "warps in flight per SM");
  check_argument("e", e, 1, 32, false, "active lanes per warp instruction");
  check_argument("c", c, 0, 1, false, "the CAS share");
  check_argument("k", k, 1, 64, false, "wavefronts per warp instruction");  // 32 lanes x 2 words (64-bit)
  check_argument("instruction_factor", instruction_factor, 0, kLargest, true, "a factor on the instruction count");
}

py::dict what_if(const model::KernelProfile& profile, const Table& table, std::optional<double> n,
                 std::optional<double> e, std::optional<double> c, std::optional<double> k,
                 double instruction_factor, const std::string& description) {
  check_what_if_arguments(n, e, c, k, instruction_factor);
  const model::KernelAnalysis analysis = model::analyze(profile, *table.model);
  if (!analysis.evaluated) throw std::invalid_argument(profile.kernel_name + ": the model could not evaluate it");
  model::ModelChange change{description, n, e, c, k, instruction_factor};
  const model::WhatIf w = model::predict(analysis, *table.model, change);
  const model::GainInterval interval = model::shared_unit_interval(analysis, profile, w);
  py::dict d;
  d["id"] = enum_name(w.id);  // "custom": the caller's own change
  d["change"] = w.change;
  d["n"] = w.queue_length;
  d["e"] = w.active_lanes;
  d["c"] = w.cas_share;
  d["k"] = w.wavefronts_per_instruction;
  d["current_utilization"] = analysis.utilization.mean;
  d["predicted_utilization"] = w.predicted_utilization;
  d["predicted_time_ns"] = w.predicted_time_ns ? py::cast(*w.predicted_time_ns) : py::none();
  d["speedup"] = w.speedup;
  // The gain as an interval: full overlap (low) to no overlap (high, = speedup); docs/model.md.
  d["speedup_low"] = interval.evaluated ? py::cast(interval.low) : py::none();
  d["speedup_high"] = interval.evaluated ? py::cast(interval.high) : py::none();
  d["outside_calibrated_range"] = w.outside_calibrated_range;
  return d;
}

// One flat record per kernel of a run document, evaluated with `table`.
py::dict record(const run::RunDocument& run, size_t i, const Table& table) {
  const model::KernelProfile& p = run.profiles[i];
  const model::KernelAnalysis a = model::analyze(p, *table.model);
  const auto t = p.counter(model::metric::kDurationNs);
  py::dict r;
  r["run"] = run.label;
  r["launch"] = i;
  r["kernel"] = p.kernel_name;
  r["chip"] = p.device.chip;
  r["time_ns"] = t ? py::cast(*t) : py::none();
  r["evaluated"] = a.evaluated;
  r["class"] = enum_name(a.utilization_class);
  r["binding_unit"] = enum_name(a.binding_unit);
  r["U_mean"] = a.evaluated ? py::cast(a.utilization.mean) : py::none();
  r["U_max"] = a.evaluated ? py::cast(a.utilization.max) : py::none();
  r["n_hat"] = a.queue_length;
  r["e"] = a.inputs.active_lanes;
  r["c"] = a.inputs.cas_share;
  r["k"] = a.inputs.wavefronts_per_instruction;
  // The analysis' recommended what-if with its expected gain, as the report's export names them.
  const model::WhatIf* w = a.recommended_what_if();
  r["best_what_if"] = w ? py::cast(w->change) : py::none();
  r["best_what_if_id"] = w ? py::cast(enum_name(w->id)) : py::none();
  r["predicted_gain_low"] = w ? py::cast(w->gain_low()) : py::none();
  r["predicted_gain_high"] = w ? py::cast(w->gain_high()) : py::none();
  r["table"] = table.selected.path;
  return r;
}

py::list read_run(const std::string& path, const std::optional<Table>& table) {
  const run::RunDocument run = run::load_run_document(path);
  const std::string chip = run.profiles.empty() ? "" : run.profiles.front().device.chip;
  const std::string gpu = run.profiles.empty() ? "" : run.profiles.front().device.name;
  const Table used = table ? *table : load_table("", chip, gpu);
  py::list records;
  for (size_t i = 0; i < run.profiles.size(); ++i) records.append(record(run, i, used));
  return records;
}

void bind_types(py::module_& m) {
  py::class_<Table>(m, "Table", "a service-time table and the model built on it")
      .def_property_readonly("path", [](const Table& t) { return t.selected.path; })
      .def_property_readonly("origin", [](const Table& t) { return t.selected.origin; })
      .def_property_readonly("reason", [](const Table& t) { return t.selected.reason; })
      .def_property_readonly("chip", [](const Table& t) { return t.selected.table.provenance.device.chip; })
      .def_property_readonly("gpu", [](const Table& t) { return t.selected.table.provenance.device.name; })
      .def_property_readonly("warnings", [](const Table& t) { return t.selected.warnings; });
  py::class_<model::KernelProfile>(m, "Profile", "one kernel launch's counters and launch configuration")
      .def_readonly("kernel_name", &model::KernelProfile::kernel_name)
      .def_property_readonly("chip", [](const model::KernelProfile& p) { return p.device.chip; })
      .def_property_readonly("gpu", [](const model::KernelProfile& p) { return p.device.name; })
      .def_readonly("counters", &model::KernelProfile::counters)
      .def("__repr__", [](const model::KernelProfile& p) { return "<atomq.Profile " + p.kernel_name + ">"; });
}

}  // namespace

PYBIND11_MODULE(_atomq, m) {
  m.doc() = "atomq: the queueing model of the GPU shared-memory atomic unit";
  m.attr("__version__") = kVersion;
  m.attr("model_version") = kModelVersion;  // the digest of the model's sources and bundled tables
  bind_types(m);
  m.def("model_terms", [] {
          std::vector<std::string> names;
          for (model::ModelTerm t : enum_values<model::ModelTerm>()) names.push_back(enum_name(t));
          return names;
        },
        "the names of the model's terms that analyze(rules={\"terms_off\": [...]}) can switch off");
  m.def("data_dir", &data_dir, "atomq's data folder (share/atomq), or None");
  m.def("bundled_table_for",
        [](const std::string& dir, const std::string& chip, const std::string& gpu) {
          return model::bundled_table_for(dir, chip.empty() ? "GH100" : chip, gpu);
        },
        py::arg("dir"), py::arg("chip"), py::arg("gpu") = "",
        "the bundled table in dir a profile of that GPU is evaluated with (its GPU model's, else its chip's; "
        "chip '' as GH100), or None");
  m.def("load_table", &load_table, py::arg("path") = "", py::arg("chip") = "", py::arg("gpu") = "",
        "the table given, else the one atomq analyze would use for chip and gpu, a profile's GPU name "
        "(user calibration, else the GPU model's bundled table, else the chip's)");
  m.def("read_profiles", [](const std::string& path) { return run::load_run_document(path).profiles; },
        py::arg("path"), "the kernel profiles of a run document");
  m.def("load_profile", &model::load_kernel_profile, py::arg("path"), "one kernel profile document");
  m.def("analyze", &analyze_profile, py::arg("profile"), py::arg("table"), py::arg("rules") = py::none(),
        "the model's analysis of a profile, as the atomq.analysis JSON document (a dict); rules: a dict of "
        "overrides of the model's rules (thresholds, \"terms_off\": [term names])");
  m.def("what_if", &what_if, py::arg("profile"), py::arg("table"), py::arg("n") = py::none(),
        py::arg("e") = py::none(), py::arg("c") = py::none(), py::arg("k") = py::none(),
        py::arg("instruction_factor") = 1.0, py::arg("description") = "what-if",
        "the predicted utilization and time if n, e, c or k changed");
  m.def("read_run", &read_run, py::arg("path"), py::arg("table") = py::none(),
        "one flat record (dict) per kernel of a run document, evaluated again: pandas.DataFrame(records)");
}
