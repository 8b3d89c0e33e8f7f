// The sites of a launch the per-instruction counts did not measure (launch_sites.hpp): the
// counts give the kernel's structure, this launch's counters its amounts. Each atomic site takes
// its share of this launch's counter of its kind (shared CAS, shared fetch-and-op, ATOMG, REDG);
// the instructions of a CAS retry loop scale with its CAS executions (as many instructions per
// attempt as measured); all other code scales with the loop entries, counted by this launch's
// useful updates, its fetch-and-op atomics outside the loops, or its threads. Lanes per CAS
// attempt are taken as measured, so attempts per update follow this launch's own CAS count.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "atomq/model/launch_sites.hpp"
#include "atomq/model/metric_names.hpp"

namespace atomq::model {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The counter that counts a site's warp instructions.
enum class Kind { kSharedCas, kSharedFetchOp, kGlobalAtom, kGlobalRed };
constexpr Kind kKinds[] = {Kind::kSharedCas, Kind::kSharedFetchOp, Kind::kGlobalAtom, Kind::kGlobalRed};

Kind kind_of(const AtomicSite& s) {
  if (s.unit == SiteUnit::kShared) return s.is_cas ? Kind::kSharedCas : Kind::kSharedFetchOp;
  return starts_with(s.opcode, "RED") ? Kind::kGlobalRed : Kind::kGlobalAtom;
}

struct KindCounter {
  const char* metric;
  const char* words;
};
KindCounter counter_of(Kind k) {
  switch (k) {
    case Kind::kSharedCas: return {metric::kSharedAtomInstCas, "shared CAS instructions"};
    case Kind::kSharedFetchOp: return {metric::kSharedAtomInstAlu, "shared fetch-and-op instructions"};
    case Kind::kGlobalAtom: return {metric::kGlobalAtomInst, "ATOMG instructions"};
    default: return {metric::kGlobalRedInst, "REDG instructions"};
  }
}

std::string launch_words(long long first, long long count) {
  return count > 1 ? fmt::format("launches {}-{}", first, first + count - 1) : fmt::format("launch {}", first);
}

const InstructionLoop* innermost_loop(const std::vector<InstructionLoop>& loops, long long offset) {
  const InstructionLoop* best = nullptr;
  for (const InstructionLoop& l : loops)
    if (l.contains(offset) && (!best || l.branch - l.head < best->branch - best->head)) best = &l;
  return best;
}

bool is_retry_site(const AtomicSite& s) { return s.is_cas && s.attempts_per_warp_entry && s.loop_entry_executions > 0; }

// How this launch's amounts relate to the measured launch's.
struct Scaling {
  std::map<Kind, double> by_kind;  // this launch's warp instructions of a kind / the measured launch's
  std::optional<double> entries;   // loop entries, and the code outside the retry loops
  std::vector<std::string> counted;  // the counters used, in words
  std::string entries_basis;
  std::vector<std::pair<const InstructionLoop*, double>> retry_loops;  // each CAS loop and its scale
  std::string missing;             // why the figures cannot be derived ("" when they can)
};

double measured_executions(const std::vector<AtomicSite>& sites, Kind k) {
  double sum = 0;
  for (const AtomicSite& s : sites)
    if (kind_of(s) == k) sum += s.executions_per_launch;
  return sum;
}

// ATOMG instructions of this launch: its counter, else (a CUDA graph's range, which drops the
// SASS counters) its L2 CAS requests at the measured launch's requests per ATOMG instruction.
std::optional<double> global_atom_instructions(const KernelProfile& p, std::string& words) {
  if (const auto n = p.counter(metric::kGlobalAtomInst)) return n;
  const auto& kept = p.instructions->measured_counters;
  const auto requests = p.counter(metric::kL2CasRequests);
  const auto ref_requests = kept.find(metric::kL2CasRequests), ref_atom = kept.find(metric::kGlobalAtomInst);
  if (!requests || ref_requests == kept.end() || ref_atom == kept.end() || ref_requests->second <= 0)
    return std::nullopt;
  words = fmt::format("ATOMG instructions (from its {:.3g} L2 CAS requests, as many per instruction as measured)",
                      *requests);
  return *requests * ref_atom->second / ref_requests->second;
}

void scale_kinds(const KernelProfile& p, const std::vector<AtomicSite>& sites, Scaling& s) {
  for (Kind k : kKinds) {
    const double measured = measured_executions(sites, k);
    if (measured <= 0) continue;
    std::string words = counter_of(k).words;
    const std::optional<double> n =
        k == Kind::kGlobalAtom ? global_atom_instructions(p, words) : p.counter(counter_of(k).metric);
    if (!n) continue;  // its sites scale with the loop entries; a retry loop's CAS cannot (scaling_of)
    s.by_kind[k] = *n / measured;
    s.counted.push_back(fmt::format("{:.3g} {}", *n, words));
  }
}

// Lanes entering the retry loops per launch, as measured (each lane's update is one entry).
double measured_entry_lanes(const std::vector<AtomicSite>& sites) {
  double lanes = 0;
  std::set<long long> seen;
  for (const AtomicSite& s : sites)
    if (is_retry_site(s) && seen.insert(*s.loop_entry_offset).second)
      lanes += s.executions_per_launch / *s.attempts_per_warp_entry * s.loop_entry_lanes / s.loop_entry_executions;
  return lanes;
}

// This launch's loop entries over the measured launch's, from the first count that gives them.
void scale_entries(const KernelProfile& p, const std::vector<AtomicSite>& sites, Scaling& s) {
  const InstructionProfile& ip = *p.instructions;
  const std::string there = launch_words(ip.first_launch, ip.launches);
  const double entry_lanes = measured_entry_lanes(sites);
  if (p.useful_updates && entry_lanes > 0) {
    s.entries = *p.useful_updates / entry_lanes;
    s.entries_basis = fmt::format("its {:.3g} useful updates, one loop entry each", *p.useful_updates);
    return;
  }
  const bool fetch_ops_outside = std::none_of(sites.begin(), sites.end(), [&](const AtomicSite& x) {
    return kind_of(x) == Kind::kSharedFetchOp && x.in_loop &&
           std::any_of(s.retry_loops.begin(), s.retry_loops.end(),
                       [&](const auto& loop) { return loop.first->contains(x.offset); });
  });
  if (const auto it = s.by_kind.find(Kind::kSharedFetchOp); it != s.by_kind.end() && fetch_ops_outside) {
    s.entries = it->second;
    s.entries_basis = fmt::format("its shared fetch-and-op atomics outside the loops, as many per entry as on {}", there);
    return;
  }
  const double threads = static_cast<double>(p.launch.threads_per_block() * p.launch.blocks());
  if (ip.threads_per_launch > 0) {
    s.entries = threads / ip.threads_per_launch;
    s.entries_basis = fmt::format("its {:.0f} threads at {}'s entries per thread ({:.0f} threads there; no counter "
                                  "of this launch counts them)", threads, there, ip.threads_per_launch);
    return;
  }
  s.missing = "no count of this launch's loop entries (no useful updates, no fetch-and-op atomics outside the loops, "
              "the measured launch's threads unknown)";
}

Scaling scaling_of(const KernelProfile& p, const std::vector<AtomicSite>& sites) {
  Scaling s;
  scale_kinds(p, sites, s);
  for (const AtomicSite& site : sites) {
    if (!is_retry_site(site)) continue;
    const InstructionLoop* loop = innermost_loop(p.instructions->loops, site.offset);
    const auto scale = s.by_kind.find(kind_of(site));
    if (scale == s.by_kind.end())
      s.missing = fmt::format("this launch has no count of its {}", counter_of(kind_of(site)).words);
    else if (loop)
      s.retry_loops.emplace_back(loop, scale->second);
  }
  scale_entries(p, sites, s);
  return s;
}

// A PC's scale: an atomic's is its counter's; inside a retry loop the loop's (instructions per
// attempt as measured); elsewhere the loop entries'.
double scale_at(const Scaling& s, const std::vector<AtomicSite>& sites, long long offset) {
  for (const AtomicSite& site : sites)
    if (site.offset == offset) {
      const auto it = s.by_kind.find(kind_of(site));
      if (it != s.by_kind.end()) return it->second;
    }
  const std::pair<const InstructionLoop*, double>* inner = nullptr;
  for (const auto& loop : s.retry_loops)
    if (loop.first->contains(offset) &&
        (!inner || loop.first->branch - loop.first->head < inner->first->branch - inner->first->head))
      inner = &loop;
  return inner ? inner->second : *s.entries;
}

// Attempts from this launch's CAS executions over its loop entries, with as many lanes per
// attempt as measured; at least one attempt per update, at most one per lane and execution.
void derive_attempts(AtomicSite& site, double measured_executions, double entry_scale) {
  const double entries = measured_executions / *site.attempts_per_warp_entry * entry_scale;
  const double entry_lanes = entries * site.loop_entry_lanes / site.loop_entry_executions;
  const double executions = site.executions_per_launch;
  site.loop_entry_executions = entries;
  site.loop_entry_lanes = entry_lanes;
  if (entries <= 0 || entry_lanes <= 0 || executions <= 0) {
    site.attempts_per_warp_entry.reset();
    site.attempts_per_update.reset();
    return;
  }
  const double per_entry = std::max(1.0, executions / entries);
  const double per_update = std::clamp(executions * site.lanes_per_instruction / entry_lanes, 1.0, per_entry);
  site.attempts_per_warp_entry = per_entry;
  site.attempts_per_update = per_update;
  site.lanes_per_instruction = per_update * entry_lanes / executions;
}

std::vector<AtomicSite> derived_sites(const InstructionProfile& ip, std::vector<AtomicSite> sites, const Scaling& s) {
  const double launches = static_cast<double>(std::max<long long>(1, ip.launches));
  const std::vector<AtomicSite> measured = sites;
  const auto executions_in = [&](const InstructionLoop* loop) {
    double sum = 0;
    for (const InstructionRecord& r : ip.records)
      if (!loop || loop->contains(r.offset)) sum += r.executions / launches * scale_at(s, measured, r.offset);
    return sum;
  };
  const double kernel = executions_in(nullptr);
  double shared_wavefronts = 0;
  for (size_t i = 0; i < sites.size(); ++i) {
    AtomicSite& site = sites[i];
    site.executions_per_launch *= scale_at(s, measured, site.offset);
    site.kernel_instructions = kernel;
    if (const InstructionLoop* loop = innermost_loop(ip.loops, site.offset)) {
      site.loop_instructions = executions_in(loop);
      site.loop_instruction_share = kernel > 0 ? site.loop_instructions / kernel : 0;
    }
    if (site.unit == SiteUnit::kShared) shared_wavefronts += site.executions_per_launch * site.wavefronts_per_instruction;
    if (is_retry_site(site)) derive_attempts(site, measured[i].executions_per_launch, *s.entries);
  }
  for (AtomicSite& site : sites)
    if (site.unit == SiteUnit::kShared)
      site.busy_share =
          shared_wavefronts > 0 ? site.executions_per_launch * site.wavefronts_per_instruction / shared_wavefronts : 0;
  return sites;
}

SitesBasis basis_of(const KernelProfile& p) {
  const InstructionProfile& ip = *p.instructions;
  SitesBasis b;
  b.present = true;
  b.basis = ip.basis;
  b.measured_first_launch = ip.first_launch;
  b.measured_launches = std::max<long long>(1, ip.launches);
  b.launch = p.symbol_launch;
  if (ip.basis == InstructionBasis::kMeasured)
    b.text = ip.launches > 1 ? fmt::format("per-instruction counts summed over {} of this kernel, this launch among "
                                           "them", launch_words(ip.first_launch, ip.launches))
                             : "per-instruction counts of this launch";
  return b;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out;
}

}  // namespace

LaunchSites launch_sites(const KernelProfile& profile) {
  LaunchSites out;
  if (!profile.instructions) return out;
  const InstructionProfile& ip = *profile.instructions;
  out.basis = basis_of(profile);
  std::vector<AtomicSite> sites = atomic_sites(ip);
  if (ip.basis == InstructionBasis::kMeasured) {
    out.sites = std::move(sites);
    return out;
  }
  const std::string there = launch_words(ip.first_launch, ip.launches);
  const Scaling s = sites.empty() ? Scaling{} : scaling_of(profile, sites);
  if (sites.empty() || !s.missing.empty() || !s.entries) {
    out.basis.text = fmt::format("not derived: the per-instruction counts measured {} of this kernel, and {}", there,
                                 sites.empty() ? "give no atomic sites (no SASS listing joined)" : s.missing);
    return out;
  }
  out.sites = derived_sites(ip, std::move(sites), s);
  out.basis.derived = true;
  out.basis.entries_basis = s.entries_basis;
  out.basis.entry_scale = *s.entries;
  out.basis.text = fmt::format("derived from this launch's counters ({}) and the loop structure measured on {} "
                               "(lanes and instructions per attempt); loop entries from {}",
                               joined(s.counted), there, s.entries_basis);
  return out;
}

nlohmann::json sites_basis_json(const SitesBasis& b) {
  nlohmann::json j = {{"basis", enum_name(b.basis)},
                      {"measured_first_launch", b.measured_first_launch},
                      {"measured_launches", b.measured_launches},
                      {"derived", b.derived},
                      {"text", b.text}};
  j["launch"] = b.launch ? nlohmann::json(*b.launch) : nlohmann::json(nullptr);
  if (b.derived) {
    j["entries_basis"] = b.entries_basis;
    j["entry_scale"] = b.entry_scale;
  }
  return j;
}

}  // namespace atomq::model
