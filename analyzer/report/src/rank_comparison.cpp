// Runs of several processes: each kernel's launches grouped by the rank that made them, and a
// finding when one rank's launches take longer than another's beyond the noise (load
// imbalance across ranks: the slow rank holds the others at their next collective).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report_format.hpp"

namespace atomq::report {

namespace {

// Beyond the run-to-run noise of one kernel's time (docs/report.md: 3%), with margin.
constexpr double kImbalanceRatio = 1.10;

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

std::string rank_state(const RankRow& r, const std::vector<ReportKernel>& kernels) {
  const model::KernelAnalysis& a = kernels[r.slowest].analysis;
  if (!a.evaluated || a.inputs.instructions <= 0)
    return fmt::format("rank {}: {}", r.rank, enum_name(a.utilization_class));
  return fmt::format("rank {}: U {}, k {:.1f}, {}", r.rank, detail::utilization(a.utilization.mean),
                     a.inputs.wavefronts_per_instruction, enum_name(a.utilization_class));
}

}  // namespace

std::vector<RankRow> rank_rows(const std::vector<ReportKernel>& kernels) {
  std::map<std::tuple<std::string, std::string, int>, RankRow> rows;  // (run, kernel, rank)
  std::map<std::tuple<std::string, std::string, int>, std::vector<double>> times;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const ReportKernel& k = kernels[i];
    if (!k.profile.process || !k.profile.process->rank) continue;
    const auto key = std::make_tuple(k.run_label, k.profile.kernel_name, *k.profile.process->rank);
    auto [at, fresh] = rows.try_emplace(key);
    RankRow& r = at->second;
    if (fresh) {
      r = RankRow{k.run_label, short_kernel_name(k.profile.kernel_name), k.profile.kernel_name,
                  *k.profile.process->rank, 0, std::nullopt, i};
    }
    ++r.launches;
    if (k.duration_ns) {
      times[key].push_back(*k.duration_ns);
      if (!kernels[r.slowest].duration_ns || *k.duration_ns > *kernels[r.slowest].duration_ns) r.slowest = i;
    }
  }
  std::vector<RankRow> out;
  std::map<std::pair<std::string, std::string>, int> ranks_of_kernel;
  for (auto& [key, r] : rows) {
    r.median_ns = median(times[key]);
    ++ranks_of_kernel[{r.run_label, r.kernel}];
  }
  for (auto& [key, r] : rows)  // a kernel that ran on one rank only has nothing to compare
    if (ranks_of_kernel[{r.run_label, r.kernel}] > 1) out.push_back(r);
  return out;
}

std::vector<std::string> rank_findings(const std::vector<RankRow>& rows, const std::vector<ReportKernel>& kernels) {
  std::vector<std::string> findings;
  for (std::size_t begin = 0; begin < rows.size();) {
    std::size_t end = begin;
    while (end < rows.size() && rows[end].run_label == rows[begin].run_label && rows[end].kernel == rows[begin].kernel)
      ++end;
    const RankRow *slow = nullptr, *fast = nullptr;
    for (std::size_t i = begin; i < end; ++i) {
      if (!rows[i].median_ns) continue;
      if (!slow || *rows[i].median_ns > *slow->median_ns) slow = &rows[i];
      if (!fast || *rows[i].median_ns < *fast->median_ns) fast = &rows[i];
    }
    if (slow && fast && *fast->median_ns > 0 && *slow->median_ns / *fast->median_ns >= kImbalanceRatio)
      findings.push_back(fmt::format(
          "load imbalance across ranks: {} takes {} as long on rank {} (median {}) as on rank {} ({}); {}; {}",
          slow->name, detail::speedup(*slow->median_ns / *fast->median_ns), slow->rank, detail::duration(slow->median_ns),
          fast->rank, detail::duration(fast->median_ns), rank_state(*slow, kernels), rank_state(*fast, kernels)));
    begin = end;
  }
  return findings;
}

}  // namespace atomq::report
