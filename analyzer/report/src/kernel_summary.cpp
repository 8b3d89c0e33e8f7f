// Ranking the report's kernels: launches of one kernel taken together, ordered by the time
// their best what-if would save, and one headline line per top kernel.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "atomq/common/statistics.hpp"
#include "report_format.hpp"

namespace atomq::report {

using namespace detail;

namespace {

double stake_of(const ReportKernel& k) {
  if (!k.duration_ns || !k.best_what_if || k.best_what_if->speedup <= 1.0) return 0.0;
  return *k.duration_ns * (1.0 - 1.0 / k.best_what_if->speedup);
}

// A launch's label names its run and kernel, plus "#N" when the kernel ran more than once.
std::string label_without_launch(const std::string& label) {
  const auto hash = label.rfind('#');
  return hash == std::string::npos ? label : label.substr(0, hash);
}

std::string binding_words(model::BindingUnit unit) {
  switch (unit) {
    case model::BindingUnit::kSharedAtomicUnit: return "binds: the SM's shared atomic unit";
    case model::BindingUnit::kL2AtomicUnit: return "binds: the L2 atomic unit";
    case model::BindingUnit::kDsmemPath: return "binds: the SM's DSMEM path to its cluster peers";
    default: return "no atomic unit binds it";
  }
}

std::string time_share(const KernelSummary& s) {
  std::string text = fmt::format("{} of GPU time ({}", share(s.gpu_time_share), duration(s.total_ns));
  if (s.launches.size() > 1) text += fmt::format(", {} launches", s.launches.size());
  return text + ")";
}

// The launch whose best what-if saves the most: the slowest launch may have none (launches of
// one kernel with different inputs).
const ReportKernel& launch_with_most_at_stake(const KernelSummary& s, const std::vector<ReportKernel>& kernels) {
  std::size_t best = s.slowest;
  for (std::size_t i : s.launches)
    if (stake_of(kernels[i]) > stake_of(kernels[best])) best = i;
  return kernels[best];
}

std::string headline_line(const KernelSummary& s, const std::vector<ReportKernel>& kernels) {
  const ReportKernel& k = s.time_at_stake_ns > 0 ? launch_with_most_at_stake(s, kernels) : kernels[s.slowest];
  const auto& a = k.analysis;
  if (s.time_at_stake_ns > 0 && k.best_what_if) {
    const model::Finding* why = a.recommended_finding();  // it says why the fix pays
    return fmt::format("{}: {}; {} ({}): {}; fix: {}, predicted {} faster, saving up to {}", s.name, time_share(s),
                       binding_words(a.binding_unit), enum_name(a.utilization_class),
                       why ? why->title : "see its findings", k.best_what_if->change, gain_interval(*k.best_what_if),
                       duration(s.time_at_stake_ns));
  }
  // Atomics on a path the model has no queue for, and no modelled unit binding: say so first.
  if (const model::Finding* path = a.find(model::FindingKind::kUnmodelledPath);
      path && a.utilization_class == model::UtilizationClass::kInsufficientData)
    return fmt::format("{}: {}; {} ({}): {}", s.name, time_share(s), path->title, enum_name(a.utilization_class),
                       path->details.empty() ? path->recommendation : path->details.front());
  // The DSMEM path binds: its finding says how busy and what to change (no what-if prices it yet).
  if (const model::Finding* dsmem = a.find(model::FindingKind::kDsmemPath);
      dsmem && a.binding_unit == model::BindingUnit::kDsmemPath)
    return fmt::format("{}: {}; {} ({}): {}; {}", s.name, time_share(s), binding_words(a.binding_unit),
                       enum_name(a.utilization_class), dsmem->title, dsmem->recommendation);
  return fmt::format("{}: {}; {} ({}): no atomic change is predicted to pay, {}", s.name, time_share(s),
                     binding_words(a.binding_unit), enum_name(a.utilization_class),
                     !a.l2.evaluated ? "but its L2 atomics were not measured, so global atomics are not ruled out"
                     : a.time.other_floor.empty() ? "its time goes to memory, compute or latency"
                                                  : "bound by " + a.time.other_floor);
}

}  // namespace

std::string nvtx_op(const std::vector<std::string>& ranges) {
  if (ranges.empty()) return "";
  std::string op = ranges.back();
  // PyTorch's emit_nvtx() appends the op's sequence number, id and sizes: the op is the name.
  for (const char* field : {", seq = ", ", stashed seq = ", ", op_id = ", ", sizes = "})
    if (const auto at = op.find(field); at != std::string::npos) op.resize(at);
  return op;
}

std::vector<KernelSummary> summarize_kernels(const std::vector<ReportKernel>& kernels) {
  std::vector<KernelSummary> summaries;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;  // (run, op, kernel) -> summary
  double all_ns = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const ReportKernel& k = kernels[i];
    const std::string op = nvtx_op(k.profile.nvtx);
    const auto key = std::make_tuple(k.run_label, op, k.profile.kernel_name);
    auto [at, added] = index.emplace(key, summaries.size());
    if (added) {
      const std::string name = label_without_launch(k.label);
      summaries.push_back({op.empty() ? name : op + ": " + name, op, k.profile.kernel_name, k.run_label, {}, i});
    }
    KernelSummary& s = summaries[at->second];
    s.launches.push_back(i);
    if (k.duration_ns) {
      s.total_ns = s.total_ns.value_or(0.0) + *k.duration_ns;
      all_ns += *k.duration_ns;
      if (!kernels[s.slowest].duration_ns || *k.duration_ns > *kernels[s.slowest].duration_ns) s.slowest = i;
    }
    s.time_at_stake_ns += stake_of(k);
  }
  for (auto& s : summaries) {
    std::vector<double> times;
    for (std::size_t i : s.launches)
      if (kernels[i].duration_ns) times.push_back(*kernels[i].duration_ns);
    if (!times.empty()) s.median_ns = median(times);
    if (s.total_ns && all_ns > 0) s.gpu_time_share = *s.total_ns / all_ns;
  }
  std::stable_sort(summaries.begin(), summaries.end(), [](const KernelSummary& a, const KernelSummary& b) {
    if (a.time_at_stake_ns != b.time_at_stake_ns) return a.time_at_stake_ns > b.time_at_stake_ns;
    return a.total_ns.value_or(0.0) > b.total_ns.value_or(0.0);
  });
  return summaries;
}

std::vector<std::string> headline_lines(const std::vector<KernelSummary>& summaries,
                                        const std::vector<ReportKernel>& kernels, std::size_t max_lines) {
  std::vector<std::string> lines;
  const KernelSummary* slowest = nullptr;
  for (const auto& s : summaries)
    if (!slowest || s.total_ns.value_or(0.0) > slowest->total_ns.value_or(0.0)) slowest = &s;
  bool slowest_named = false;
  for (const auto& s : summaries) {  // ranked: the most time at stake first
    if (lines.size() == max_lines || s.time_at_stake_ns <= 0) break;
    lines.push_back(headline_line(s, kernels));
    slowest_named |= &s == slowest;
  }
  // The slowest kernel is always named, so it never passes for "fine".
  if (slowest && !slowest_named) lines.push_back(headline_line(*slowest, kernels));
  return lines;
}

}  // namespace atomq::report
