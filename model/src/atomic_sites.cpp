#include "atomq/model/atomic_sites.hpp"

#include <algorithm>

namespace atomq::model {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_shared_atomic(const std::string& op) { return starts_with(op, "ATOMS."); }
bool is_cas(const std::string& op) { return op.find(".CAS") != std::string::npos; }  // .CAS and .CAST

// The innermost loop holding `offset`, or nullptr.
const InstructionLoop* innermost_loop(const std::vector<InstructionLoop>& loops, long long offset) {
  const InstructionLoop* best = nullptr;
  for (const InstructionLoop& l : loops)
    if (l.contains(offset) && (!best || l.branch - l.head < best->branch - best->head)) best = &l;
  return best;
}

// An instruction that never falls through to the next one.
bool ends_flow(const InstructionRecord& r) {
  return r.predicate.empty() && (starts_with(r.opcode, "BRA") || r.opcode == "EXIT" || starts_with(r.opcode, "RET"));
}

// The CAS loop's entry: the instruction right before the loop's head, when it falls through
// into the head and is not predicated (its executions and lanes are then the loop's entries).
const InstructionRecord* loop_entry(const InstructionProfile& p, const InstructionLoop& loop) {
  const InstructionRecord* before = nullptr;
  for (const InstructionRecord& r : p.records)
    if (r.offset < loop.head) before = &r;
  if (!before || ends_flow(*before) || !before->predicate.empty() || before->executions <= 0) return nullptr;
  return before;
}

void add_loop_figures(const InstructionProfile& p, const InstructionRecord& r, AtomicSite& site, double all_executions,
                      double launches) {
  const InstructionLoop* loop = innermost_loop(p.loops, r.offset);
  site.in_loop = loop != nullptr;
  if (!loop) return;
  double inside = 0;
  for (const InstructionRecord& x : p.records)
    if (loop->contains(x.offset)) inside += x.executions;
  site.loop_instructions = inside / launches;
  if (all_executions > 0) site.loop_instruction_share = inside / all_executions;
  if (!site.is_cas) return;
  const InstructionRecord* entry = loop_entry(p, *loop);
  if (!entry) return;
  site.loop_entry_offset = entry->offset;
  site.loop_entry_executions = entry->executions;
  site.loop_entry_lanes = entry->lanes;
  site.attempts_per_warp_entry = r.executions / entry->executions;
  if (entry->lanes > 0 && r.lanes > 0) site.attempts_per_update = r.lanes / entry->lanes;
}

}  // namespace

std::vector<AtomicSite> atomic_sites(const InstructionProfile& p) {
  std::vector<AtomicSite> sites;
  if (!p.has_listing) return sites;
  const double launches = std::max<long long>(1, p.launches);
  double shared_wavefronts = 0, all_executions = 0;
  for (const InstructionRecord& r : p.records) {
    all_executions += r.executions;
    if (is_shared_atomic(r.opcode)) shared_wavefronts += r.wavefronts;
  }
  for (const InstructionRecord& r : p.records) {
    const std::optional<AtomicPath> path = sass_atomic_path(r.opcode);
    if (!path || r.executions <= 0) continue;
    const bool shared = *path == AtomicPath::kSharedUnit;
    AtomicSite site;
    site.offset = r.offset;
    site.opcode = r.opcode;
    site.operands = r.operands;
    site.predicate = r.predicate;
    site.source = r.source;
    site.unit = shared ? SiteUnit::kShared : SiteUnit::kGlobal;
    site.path = *path;
    site.is_cas = is_cas(r.opcode);
    site.executions_per_launch = r.executions / launches;
    site.lanes_per_instruction = r.lanes / r.executions;
    if (shared) {
      site.wavefronts_per_instruction = r.wavefronts / r.executions;
      site.ideal_wavefronts_per_instruction = r.wavefronts_ideal / r.executions;
      site.busy_share = shared_wavefronts > 0 ? r.wavefronts / shared_wavefronts : 0;
      // The compiler's warp aggregation: one predicated lane updates a uniform-register address.
      site.warp_aggregated = !r.predicate.empty() && site.lanes_per_instruction <= 1.0 + 1e-9 &&
                             r.operands.find("[UR") != std::string::npos;
    }
    site.kernel_instructions = all_executions / launches;
    add_loop_figures(p, r, site, all_executions, launches);
    sites.push_back(std::move(site));
  }
  return sites;
}

CasRetryTotals cas_retry_totals(const std::vector<AtomicSite>& sites) {
  CasRetryTotals t;
  double cas_lanes = 0, entry_lanes = 0;
  std::vector<long long> loops_seen;
  for (const AtomicSite& s : sites) {
    if (!s.is_cas || !s.attempts_per_warp_entry || !s.attempts_per_update || s.loop_entry_executions <= 0) continue;
    ++t.sites;
    cas_lanes += s.lanes_per_instruction * s.executions_per_launch;
    t.cas_executions_per_launch += s.executions_per_launch;
    // Per launch, like the site's executions: entries = CAS executions / attempts per entry.
    const double entries = s.executions_per_launch / *s.attempts_per_warp_entry;
    t.entries_per_launch += entries;
    entry_lanes += s.loop_entry_lanes / s.loop_entry_executions * entries;
    if (std::find(loops_seen.begin(), loops_seen.end(), *s.loop_entry_offset) == loops_seen.end()) {
      loops_seen.push_back(*s.loop_entry_offset);
      t.loop_instructions_per_launch += s.loop_instructions;
    }
    t.kernel_instructions_per_launch = s.kernel_instructions;
    if (!t.worst || *s.attempts_per_update > *t.worst->attempts_per_update) t.worst = &s;
  }
  if (t.sites == 0) return t;
  t.attempts_per_update = entry_lanes > 0 ? cas_lanes / entry_lanes : 0;
  t.attempts_per_warp_entry = t.entries_per_launch > 0 ? t.cas_executions_per_launch / t.entries_per_launch : 0;
  t.lanes_per_entry = t.entries_per_launch > 0 ? entry_lanes / t.entries_per_launch : 0;
  t.loop_instruction_share = t.kernel_instructions_per_launch > 0
                                 ? std::min(1.0, t.loop_instructions_per_launch / t.kernel_instructions_per_launch)
                                 : 0;
  return t;
}

const AtomicSite* busiest_shared_site(const std::vector<AtomicSite>& sites) {
  const AtomicSite* best = nullptr;
  for (const AtomicSite& s : sites)
    if (s.unit == SiteUnit::kShared && (!best || s.busy_share > best->busy_share)) best = &s;
  return best;
}

}  // namespace atomq::model
