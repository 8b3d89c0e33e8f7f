// Which launch a per-instruction run measured, and the counts attached to every launch of the
// kernel: measured on that launch, derived on the others (launch_sites.hpp).
#include <set>
#include <utility>

#include "atomq/model/launch_sites.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::model {

namespace {

// Pids differ from run to run: only a rank tells the processes of two runs apart, and a side
// that names no process is the one process of its program.
bool same_process(const std::optional<ProcessTag>& a, const std::optional<ProcessTag>& b) {
  if (!a || !b) return true;
  if (a->rank || b->rank) return a->rank == b->rank;
  return true;
}

// The counters a derived launch compares with the measured launch's (derived_sites.cpp).
std::map<std::string, double> kept_counters(const KernelProfile& measured) {
  std::map<std::string, double> kept;
  for (const char* name : {metric::kGlobalAtomInst, metric::kL2CasRequests})
    if (const auto v = measured.counter(name)) kept[name] = *v;
  return kept;
}

// The run whose structure a derived launch takes: its own process's, else the first.
size_t run_for(const KernelProfile& p, const std::vector<MeasuredInstructions>& runs) {
  for (size_t r = 0; r < runs.size(); ++r)
    if (same_process(p.process, runs[r].process)) return r;
  return 0;
}

}  // namespace

long long kernel_launch_index(const std::vector<KernelProfile>& profiles, size_t i) {
  const KernelProfile& p = profiles.at(i);
  if (p.symbol_launch) return *p.symbol_launch;
  long long before = 0;  // the kernel's earlier direct launches in this process
  for (size_t j = 0; j < i; ++j) {
    const KernelProfile& q = profiles[j];
    const bool same_pid = (!p.process && !q.process) || (p.process && q.process && p.process->pid == q.process->pid);
    if (q.symbol == p.symbol && same_pid && !q.graph) ++before;
  }
  return before;
}

AttachedInstructions attach_instruction_counts(std::vector<KernelProfile>& profiles, const std::string& symbol,
                                               const std::vector<MeasuredInstructions>& runs) {
  AttachedInstructions attached;
  if (runs.empty()) return attached;
  std::vector<InstructionProfile> measured(runs.size());
  for (size_t r = 0; r < runs.size(); ++r) measured[r] = runs[r].profile;
  std::set<std::pair<size_t, long long>> taken;  // (run, launch index) given to a profile
  std::vector<bool> is_measured(profiles.size(), false);
  // The launches the runs counted first: the derived ones keep a few of their counters.
  for (size_t i = 0; i < profiles.size(); ++i) {
    KernelProfile& p = profiles[i];
    if (p.symbol != symbol || p.graph) continue;  // a graph's node is never a counted launch
    const long long index = kernel_launch_index(profiles, i);
    for (size_t r = 0; r < runs.size() && !is_measured[i]; ++r) {
      const InstructionProfile& counts = runs[r].profile;
      if (!counts.counted(index) || !same_process(p.process, runs[r].process) || !taken.insert({r, index}).second)
        continue;
      is_measured[i] = true;
      p.instructions = counts;
      p.instructions->basis = InstructionBasis::kMeasured;
      if (p.instructions->threads_per_launch <= 0 && counts.launches <= 1)
        p.instructions->threads_per_launch = static_cast<double>(p.launch.threads_per_block() * p.launch.blocks());
      p.instructions->measured_counters = kept_counters(p);
      measured[r].threads_per_launch = p.instructions->threads_per_launch;
      measured[r].measured_counters = p.instructions->measured_counters;
      ++attached.measured;
    }
  }
  for (size_t i = 0; i < profiles.size(); ++i) {
    KernelProfile& p = profiles[i];
    if (p.symbol != symbol || is_measured[i]) continue;
    p.instructions = measured[run_for(p, runs)];
    p.instructions->basis = InstructionBasis::kDerived;
    ++attached.derived;
  }
  return attached;
}

}  // namespace atomq::model
