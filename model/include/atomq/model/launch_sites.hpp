// Per-instruction counts measure one launch of a kernel (or a few, summed): they give its
// structure (loop entries per instruction outside the retry loops, lanes per site, which op
// executes) and apply exactly to the launch(es) they counted. Every other launch of the kernel
// gets its figures from its own counters, scaled by that structure, with the basis stated
// (docs/model.md, "Measured and derived launches").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "atomq/model/atomic_sites.hpp"
#include "atomq/model/kernel_profile.hpp"

namespace atomq::model {

// The sites of one launch: atomic_sites() of its counts where they measured it; else derived
// (derived_sites.cpp): CAS executions from this launch's CAS counter, loop entries from its
// useful updates, its fetch-and-op atomics outside the loops or its threads, and lanes and
// instructions per attempt as measured. Never the measured launch's attempts copied: where this
// launch's counters cannot give them, the sites are empty and basis.text says why.
struct LaunchSites {
  std::vector<AtomicSite> sites;
  SitesBasis basis;
};
LaunchSites launch_sites(const KernelProfile& profile);

// The basis as the analysis document writes it ("sites_basis").
nlohmann::json sites_basis_json(const SitesBasis& basis);

// One per-instruction run's counts of a kernel and the process that counted them.
struct MeasuredInstructions {
  InstructionProfile profile;         // first_launch / launches: which of the kernel's launches
  std::optional<ProcessTag> process;  // a rank tells a program's processes apart across runs
};

struct AttachedInstructions {
  int measured = 0;  // profiles given counts of their own launch
  int derived = 0;   // profiles given another launch's counts, marked derived
};

// Gives every profile of `symbol` per-instruction counts: marked measured on the launch(es) a run
// counted (same kernel launch index, same rank), derived on every other (from the run of its own
// rank where there is one). A profile's launch index is its symbol_launch, else its place among
// the kernel's profiles of its process (documents written before the collector counted).
AttachedInstructions attach_instruction_counts(std::vector<KernelProfile>& profiles, const std::string& symbol,
                                               const std::vector<MeasuredInstructions>& runs);

// The launch index attach_instruction_counts gives profiles[i] (of profiles[i].symbol).
long long kernel_launch_index(const std::vector<KernelProfile>& profiles, size_t i);

}  // namespace atomq::model
