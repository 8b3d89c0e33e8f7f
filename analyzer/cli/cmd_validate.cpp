// atomq validate: runs a validation case's variants (baseline, fix, ablation or sweep points),
// checks each against the CPU reference, times it, profiles one more run of each in-process and
// writes the run document and the timings (docs/validation.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "atomq/analyzer/injected_run.hpp"
#include "atomq/analyzer/instruction_join.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/analyzer/sass_hints.hpp"
#include "atomq/common/atomic_file.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/cuda/device_query.hpp"
#include "atomq/validation/validation.hpp"
#include "atomq/version.hpp"
#include "commands.hpp"
#include "run_report.hpp"

namespace atomq::cli {

namespace {

namespace va = atomq::validation;

struct ValidateOptions {
  bool list = false;
  std::string case_name;
  std::vector<std::string> variants;  // empty: all of the case's
  int runs = 11;
  int device = 0;
  bool analyze = true;
  bool instructions = true;  // a per-instruction run for each variant whose kernel has a CAS loop
  bool sector_counters = false;  // the profile also reads the sector counters (metric_list.hpp)
  std::string output;   // run document; default atomq-validate-CASE.json
  std::string timings;  // default atomq-validate-CASE.timings.json
  std::string table;
};

struct VariantResult {
  const va::VariantSpec* spec = nullptr;
  va::VariantCheck check;
  va::VariantTiming timing;
};

int list_cases() {
  for (const va::CaseSpec& c : va::cases()) {
    fmt::print("{}: {}{}\n  input: {}\n", c.name, c.workload,
               c.held_out.empty() ? "" : " [held-out " + c.held_out + "]", c.input);
    for (const va::VariantSpec& v : c.variants)
      fmt::print("  {:<22} {:<11} {}{}\n", v.name, enum_name(v.role), v.description,
                 v.compared_with.empty() ? "" : " (against " + v.compared_with + ")");
  }
  return kExitOk;
}

std::vector<const va::VariantSpec*> selected_variants(const va::CaseSpec& c, const std::vector<std::string>& names) {
  std::vector<const va::VariantSpec*> out;
  if (names.empty())
    for (const va::VariantSpec& v : c.variants) out.push_back(&v);
  for (const std::string& n : names) {
    const va::VariantSpec* v = c.find(n);
    if (!v) throw UsageError("--variant: case " + c.name + " has no variant '" + n + "' (atomq validate --list)");
    out.push_back(v);
  }
  return out;
}

nlohmann::json timings_json(const va::CaseSpec& c, const DeviceInfo& device, const std::vector<VariantResult>& results) {
  nlohmann::json variants = nlohmann::json::array();
  for (const VariantResult& r : results) {
    // The ids of the what-ifs that predict a fix (documents before them carry a word, predicted_by).
    nlohmann::json predicted_by_ids = nlohmann::json::array();
    for (model::WhatIfId id : r.spec->predicted_by) predicted_by_ids.push_back(enum_name(id));
    variants.push_back({{"name", r.spec->name},
                        {"role", enum_name(r.spec->role)},
                        {"compared_with", r.spec->compared_with},
                        {"predicted_by_ids", predicted_by_ids},
                        {"description", r.spec->description},
                        {"checked", r.check.checked},
                        {"exact", r.check.exact},
                        {"check", r.check.detail},
                        {"runs", r.timing.runs},
                        {"median_ms", r.timing.median_ms},
                        {"min_ms", r.timing.min_ms},
                        {"max_ms", r.timing.max_ms},
                        {"stream_held", r.timing.stream_held}});
  }
  return {{"format", "atomq.validation_timings"}, {"version", 1},
          {"case", c.name}, {"workload", c.workload}, {"input", c.input},
          {"device", device.name}, {"dram_peak_bytes_per_s", device.dram_peak_bytes_per_s},
          {"atomq_commit", kGitCommit}, {"atomq_model_version", kModelVersion}, {"variants", variants}};
}

// A CAS loop (the compiler's shared one for a float or 64-bit atomicAdd, or a global one) is told from its SASS, its attempts
// per update only from per-instruction counts (one kernel per process): each variant whose kernel
// has one runs once more in a child `atomq validate` under the per-instruction collector, and the
// counts join that variant's profile. A failed run leaves a warning; the counters' analysis stands.
void add_instruction_counts(const ValidateOptions& o, const std::string& self,
                            const std::vector<analyzer::SassFunction>& functions, const std::vector<VariantResult>& results,
                            std::vector<model::KernelProfile>& profiles, run::RunInfo& info) {
  const auto symbols = analyzer::kernels_for_instructions(profiles, static_cast<int>(profiles.size()), std::nullopt,
                                                          true, functions);
  // One child per variant: variants may share a kernel, and each gets the counts of its own run.
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    model::KernelProfile& p = profiles[i];
    if (std::find(symbols.begin(), symbols.end(), p.symbol) == symbols.end()) continue;
    const std::string variant = results[i].spec->name;
    analyzer::CollectorOptions collector;
    collector.instruction_symbol = p.symbol;
    collector.instruction_launches = 1;
    const std::string stream = o.output + ".instructions-" + std::to_string(i) + ".jsonl";
    const std::string timings = o.timings + ".instructions-" + std::to_string(i) + ".json";
    analyzer::InjectedRun run;
    try {
      run = analyzer::run_under_injection({self, "validate", "--case", o.case_name, "--variant", variant, "--runs", "1",
                                           "--no-analyze", "--device", std::to_string(o.device), "--timings", timings},
                                          collector, stream);
    } catch (const std::exception& e) {  // cannot start it, or a bad line in its stream
      run.collector_error = e.what();
    }
    std::error_code ec;
    std::filesystem::remove(stream, ec);
    std::filesystem::remove(timings, ec);
    const auto counts = std::find_if(run.instructions.begin(), run.instructions.end(),
                                     [&](const run::InstructionsMessage& m) { return m.symbol == p.symbol; });
    if (counts == run.instructions.end()) {
      info.warnings.push_back("no per-instruction counts for variant " + variant +
                              (run.collector_error.empty() ? "" : ": " + run.collector_error));
      continue;
    }
    const analyzer::SassFunction* function = analyzer::find_sass_function(
        functions, p.symbol, p.device.compute_capability_major, p.device.compute_capability_minor);
    p.instructions = analyzer::joined_with_listing(counts->profile, function);
    analyzer::global_op_from_executions(p);
  }
}

// The in-process profile's options: the default counters, with the sector counters when asked.
analyzer::ProfilerOptions sector_options(bool sector_counters) {
  analyzer::ProfilerOptions options;
  options.sector_counters = sector_counters;
  return options;
}

// One more run of every variant, profiled in-process: one profile per variant, in order.
int analyze_variants(const ValidateOptions& o, va::CaseRunner& runner, const DeviceInfo& device,
                     const std::vector<VariantResult>& results) {
  run::RunInfo info;
  std::vector<model::KernelProfile> profiles = analyzer::profile_launches(
      [&] {
        for (const VariantResult& r : results) runner.run(r.spec->name);
      },
      sector_options(o.sector_counters), &info.launches);
  // Only the suite's kernels (a memset the runtime might run as a kernel is not a variant).
  profiles.erase(std::remove_if(profiles.begin(), profiles.end(),
                                [](const model::KernelProfile& p) {
                                  return p.kernel_name.find("validation::kernels") == std::string::npos;
                                }),
                 profiles.end());
  if (profiles.size() != results.size()) {
    fmt::print(stderr, "atomq: {} profiles for {} variants: cannot tell which is which\n", profiles.size(),
               results.size());
    return kExitError;
  }
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::vector<analyzer::SassFunction> functions;
  analyzer::fill_hints_from_binary(profiles, ec ? "" : self.string(), &functions);
  if (o.instructions && !ec) add_instruction_counts(o, self.string(), functions, results, profiles, info);
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    model::KernelProfile& p = profiles[i];
    if (runner.useful_updates() > 0 && results[i].spec->role != va::VariantRole::kAblation)
      p.useful_updates = runner.useful_updates();
    if (p.device.dram_peak_bytes_per_s <= 0) p.device.dram_peak_bytes_per_s = device.dram_peak_bytes_per_s;
    p.source_detail = fmt::format("atomq validate --case {} --variant {}", o.case_name, results[i].spec->name);
  }
  info.command = fmt::format("atomq validate --case {}", o.case_name);
  info.source = "in_process";
  fmt::print("\n");
  return write_and_print_run(o.output, o.table, info, profiles);
}

int run_validate(ValidateOptions o) {
  if (o.list) return list_cases();
  if (o.case_name.empty()) throw UsageError("validate: give --case NAME or --list");
  if (o.output.empty()) o.output = "atomq-validate-" + o.case_name + ".json";
  if (o.timings.empty()) o.timings = "atomq-validate-" + o.case_name + ".timings.json";
  const va::CaseSpec* c = va::find_case(o.case_name);
  if (!c) throw UsageError("--case: unknown case '" + o.case_name + "' (atomq validate --list)");
  const std::vector<const va::VariantSpec*> variants = selected_variants(*c, o.variants);
  const DeviceInfo device = describe_device(o.device);
  va::CaseRunner runner(*c, o.device);
  fmt::print("{}: {}\n  input: {}\n", c->name, c->workload, c->input);
  std::vector<VariantResult> results;
  bool all_exact = true;
  for (const va::VariantSpec* v : variants) {
    VariantResult r{v, runner.check(v->name), runner.time(v->name, o.runs)};
    all_exact = all_exact && (!r.check.checked || r.check.exact);
    fmt::print("  {:<22} {:<11} {:>10.4f} ms median of {} ({})\n", v->name, enum_name(v->role), r.timing.median_ms,
               r.timing.runs, r.check.checked ? (r.check.exact ? "exact" : "WRONG: " + r.check.detail) : "not checked");
    results.push_back(r);
  }
  write_file_atomically(o.timings, json_text(timings_json(*c, device, results), 2) + "\n");
  fmt::print("wrote {}\n", o.timings);
  if (!all_exact) return kExitError;
  const int rc = o.analyze ? analyze_variants(o, runner, device, results) : kExitOk;
  std::fflush(stdout);  // what was printed survives a crash in the driver's teardown
  return rc;
}

}  // namespace

void add_validate_command(CLI::App& app, CommandRunner& selected) {
  auto opts = std::make_shared<ValidateOptions>();
  auto* sub = app.add_subcommand("validate", "run a validation case: baseline, fix, ablation; check, time, profile");
  sub->add_flag("--list", opts->list, "list the cases and their variants (no GPU needed)");
  sub->add_option("--case", opts->case_name, "the case to run");
  sub->add_option("--variant", opts->variants, "run only these variants (repeatable)");
  sub->add_option("--runs", opts->runs, "timed runs per variant")->capture_default_str();
  sub->add_option("--device", opts->device, "CUDA device ordinal")->capture_default_str();
  sub->add_flag("!--no-analyze", opts->analyze, "time only: no in-process profile");
  sub->add_flag("!--no-instructions", opts->instructions,
                "no per-instruction run for the variants whose kernel has a CAS loop (shared or global)");
  sub->add_flag("--sector-counters", opts->sector_counters,
                "also collect the counters on request (atomq analyze --sector-counters; one more replay pass)");
  sub->add_option("-o,--output", opts->output, "run document (default atomq-validate-CASE.json)");
  sub->add_option("--timings", opts->timings, "timings JSON (default atomq-validate-CASE.timings.json)");
  sub->add_option("--table", opts->table, "service-time table (default: for the GPU's chip)");
  sub->callback([&selected, opts] { selected = [opts] { return run_validate(*opts); }; });
}

}  // namespace atomq::cli
