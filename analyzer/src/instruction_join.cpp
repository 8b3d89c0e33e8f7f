#include "atomq/analyzer/instruction_join.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>

#include "atomq/analyzer/kernel_profiler.hpp"  // demangle
#include "atomq/analyzer/sass_atomics.hpp"
#include "atomq/common/enum_names.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::analyzer {

namespace {

std::string joined_operands(const std::vector<std::string>& operands) {
  std::string out;
  for (const std::string& o : operands) out += (out.empty() ? "" : ", ") + o;
  return out;
}

}  // namespace

model::InstructionProfile joined_with_listing(model::InstructionProfile counts, const SassFunction* function,
                                              const SourceLines* lines) {
  if (lines != nullptr) {
    for (model::InstructionRecord& r : counts.records)
      if (const auto it = lines->by_offset.find(r.offset); it != lines->by_offset.end()) r.source = it->second;
    counts.source_lines_reason = lines->reason;
  }
  if (function == nullptr) return counts;
  std::map<long long, const SassInstruction*> by_offset;
  for (const SassInstruction& i : function->instructions) by_offset[i.offset] = &i;
  int unmatched = 0;
  for (model::InstructionRecord& r : counts.records) {
    const auto it = by_offset.find(r.offset);
    if (it == by_offset.end()) {
      ++unmatched;
      continue;
    }
    r.opcode = it->second->opcode;
    r.operands = joined_operands(it->second->operands);
    r.predicate = it->second->predicate;
  }
  for (const SassLoop& l : backward_branch_loops(*function)) counts.loops.push_back({l.start, l.end});
  // Offsets that do not match mean the listing is of another build of the kernel.
  counts.has_listing = unmatched == 0;
  if (unmatched > 0)
    spdlog::warn("{}: {} of {} counted PCs are not in the SASS listing ({}): sites not told apart",
                 function->mangled_name, unmatched, counts.records.size(), function->arch);
  return counts;
}

std::vector<std::string> kernels_for_instructions(const std::vector<model::KernelProfile>& profiles, int count,
                                                  const std::optional<KernelFilter>& select, bool retry_suspects_only,
                                                  const std::vector<SassFunction>& functions) {
  std::map<std::string, double> time_by_symbol;
  std::vector<std::string> order;  // first-launch order breaks ties
  for (const model::KernelProfile& p : profiles) {
    if (p.symbol.empty()) continue;
    const bool wanted = select ? select->matches(p.symbol, p.kernel_name) : model::executes_atomics(p);
    if (!wanted) continue;
    if (!time_by_symbol.count(p.symbol)) order.push_back(p.symbol);
    time_by_symbol[p.symbol] += p.counter(model::metric::kDurationNs).value_or(0);
  }
  if (select) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return time_by_symbol[a] > time_by_symbol[b]; });
  if (static_cast<int>(order.size()) > count) order.resize(std::max(0, count));
  if (!retry_suspects_only) return order;
  std::vector<std::string> suspects;
  for (const std::string& symbol : order) {
    const model::KernelProfile* p = nullptr;
    for (const auto& q : profiles)
      if (q.symbol == symbol) p = &q;
    const SassFunction* f = find_sass_function(functions, symbol, p->device.compute_capability_major,
                                               p->device.compute_capability_minor);
    if (f == nullptr) continue;
    const SassAtomics atomics = classify_atomics(*f);
    // A CAS in a loop: the compiler's shared loop (CAST.SPIN) or a global CAS loop (a product, a
    // float max), whose attempts per update only per-instruction counts give.
    if (atomics.cas_in_loop) suspects.push_back(symbol);
  }
  return suspects;
}

bool global_op_from_executions(model::KernelProfile& profile) {
  if (!profile.instructions || !profile.instructions->has_listing) return false;
  const std::optional<ExecutedGlobalOp> executed = executed_global_op(*profile.instructions);
  if (!executed) return false;
  if (profile.global_atomic_op == executed->op &&
      profile.global_atomic_op_stands_in_for == executed->stands_in_for)
    return false;
  spdlog::info("{}: global op {} from the executed instructions ({:.0f} warp-level executions), not {} from the "
               "listing's loops",
               profile.kernel_name, enum_name(executed->op), executed->executions,
               profile.global_atomic_op ? enum_name(*profile.global_atomic_op) : std::string("none"));
  profile.global_atomic_op = executed->op;
  profile.global_atomic_op_stands_in_for = executed->stands_in_for;
  return true;
}

model::AttachedInstructions attach_instructions(std::vector<model::KernelProfile>& profiles, const std::string& symbol,
                                                const std::vector<model::MeasuredInstructions>& runs) {
  const model::AttachedInstructions attached = model::attach_instruction_counts(profiles, symbol, runs);
  // Which op executes is the kernel's structure: every launch takes it.
  for (model::KernelProfile& p : profiles)
    if (p.symbol == symbol) global_op_from_executions(p);
  spdlog::info("{}: per-instruction counts attached to {} launch(es) as measured, {} as derived", demangle(symbol),
               attached.measured, attached.derived);
  return attached;
}

}  // namespace atomq::analyzer
