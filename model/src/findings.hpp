// The findings of the model's evaluation of one kernel (analysis.cpp): private to the model
// library. Each adds at most one Finding to the analysis, in the order the report shows them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "atomq/model/analysis.hpp"
#include "atomq/model/cas_retry_law.hpp"
#include "atomq/model/rules.hpp"
#include "atomq/model/service_time.hpp"

namespace atomq::model::detail {

// Hopper figures the what-ifs and floors use: the largest shared-memory carve-out of an SM (227
// KiB, also the most one block may take), and its 4 warp schedulers, each issuing one warp
// instruction per cycle.
inline constexpr double kSharedMemoryBytesPerSm = 227.0 * 1024;
inline constexpr double kWarpSchedulersPerSm = 4;

// Marks the analysis as not evaluable; each detail names the counter or field at fault.
void add_insufficient_data(KernelAnalysis& a, std::vector<std::string> details);

// Atomics on paths the model has no queue for (path_findings.cpp): why the L2 queue is not
// evaluated when their requests reach its counters (nullopt: it is), and one finding per path.
std::optional<std::string> l2_left_to_unmodelled_path(const std::vector<PathTraffic>& traffic);
void add_unmodelled_path_findings(KernelAnalysis& a, const std::vector<PathTraffic>& traffic);
// The evaluated DSMEM path's finding with its block_local_bins what-if: first where it binds the
// kernel, else after the others (path_findings.cpp). Call before the intervals are attached;
// name_what_binds_beside_dsmem after predict_kernel_time fills in what binds instead.
void add_dsmem_finding(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m);
void name_what_binds_beside_dsmem(KernelAnalysis& a);

// When the calibration table was measured on another chip than the kernel ran on.
void add_table_mismatch(KernelAnalysis& a);

// The headline of a kernel without shared atomics (the unit idle, U = 0).
void add_idle_shared_unit_findings(KernelAnalysis& a);

// The headline when the L2 slices bind (l2_findings.cpp): names the unit and the cause.
Finding l2_utilization_finding(const KernelAnalysis& a);

// The L2 queue's findings (l2_hot_address, l2_hot_slice, l2_throughput) with their what-ifs,
// when the hottest slice is at least potentially bound; none for idle or unbusy slices.
void add_l2_findings(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m,
                     const Rules& r);

// The kernel's CAS retry loops taken together when their attempts per update reach the rule's
// threshold (cas_retry.cpp).
std::optional<CasRetryTotals> retrying_cas(const KernelAnalysis& a, const Rules& r);
// The class the retry loops give the shared unit (cas_retry.cpp): at least potential when
// they hold most of the kernel's instructions, severe with many attempts.
UtilizationClass cas_retry_class(const CasRetryTotals& t, const Rules& r);
// The cas_retry finding with its what-if (cas_retry.cpp); nothing without a retrying site.
void add_cas_retry(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r);
// A global CAS loop of a kernel without shared atomics: the retries named at the L2 (no what-if:
// the cost of a retry at the L2 is not calibrated yet).
void add_global_cas_retry(KernelAnalysis& a, const KernelProfile& profile, const ServiceTimeModel& m, const Rules& r);
// The share of a global CAS loop's updates that change its one word, by the retry law: the
// loop's attempts per update against the law's a(m) at its contending lanes. Within the sweep
// one value (least = most). Beyond the sweep's most lanes a(m) is extrapolated; taking a(m) to
// rise with m, it is at least the sweep's last point: the share is at most what that point gives
// and at least what the extrapolation gives.
struct ChangingShare {
  double least = 0, most = 0;
  double lanes = 0;            // contending lanes before the fix
  double sweep_lanes = 0;      // the sweep's most lanes per word
  double law_attempts = 0;     // a(lanes), extrapolated where lanes > sweep_lanes
  double sweep_attempts = 0;   // a(sweep_lanes)
  bool beyond_sweep() const { return lanes > sweep_lanes; }
};
// nullopt without a fitted law, a launch shape, or with several hot words.
std::optional<ChangingShare> changing_update_share(const KernelAnalysis& a, const KernelProfile& profile,
                                                   const CasRetryTotals& t, const CasRetryLaw& law);
// A global CAS retry loop measured by the per-instruction counts (its totals), or nullopt.
std::optional<CasRetryTotals> retrying_global_cas(const KernelAnalysis& a, const Rules& r);
// cas_combine_what_if.cpp: the global loop's updates combined per warp and block, priced by the retry law.
std::optional<WhatIf> combine_before_cas(const KernelAnalysis& a, const KernelProfile& profile,
                                         const CasRetryTotals& t, const CasRetryLaw& law, const Rules& r,
                                         std::vector<std::string>& details);

// The two units in sequence (units_in_sequence.cpp); not evaluated unless the kernel privatizes,
// uses both units and runs in one wave of blocks.
UnitsInSequence units_in_sequence(const KernelAnalysis& a, const KernelProfile& p, const Rules& r);
// The headline when the sequence sets the kernel's class (UnitsInSequence::sets_class).
Finding units_in_sequence_finding(const KernelAnalysis& a);

// The seed's one-copy-per-warp replication of a kernel's shared counters (warp_copies_what_if.cpp),
// its interval already set; none without the launch's shared memory, warps and occupancy.
std::optional<WhatIf> warp_copies_what_if(const KernelAnalysis& a, const KernelProfile& p);

// The kernel's predicted time from its floors (kernel_time.cpp): after the units are bound.
KernelTimePrediction predict_kernel_time(const KernelAnalysis& a, const KernelProfile& p);

// The work no change of the atomics removes, by a floor the counters give (kernel_time.cpp): the
// DRAM bytes at the reachable bandwidth; what-ifs keep at least this much of the kernel's time
// (a busy atomic unit hides it). The load latency floor is an estimate, not a floor (a kernel
// with several loads in flight per warp runs below it: the intervals take it at their low end,
// gain_interval.cpp). The one computation of the DRAM floor: the what-ifs, the intervals' memory
// floor and the predicted time's memory floor all read it.
struct RestFloor {
  bool measured = false;  // the DRAM counter and the peak bandwidth are known (ns may then be 0)
  double ns = 0;
  std::string basis;      // "non-atomic work X us (...)"
};
RestFloor rest_floor(const KernelProfile& p);

// The launch floor (launch_floor.cpp): no what-if predicts the kernel shorter than an empty
// kernel of its grid, the table's launch section read at the launch's blocks and block size,
// where the kernel ran on the GPU that measured it (`table_gpu`, the table's device name).
// Run after the intervals are set and before the recommendation is chosen.
void floor_what_ifs_at_launch(KernelAnalysis& a, const KernelProfile& p, const calibration::LaunchSection* launch,
                              const std::string& table_gpu, const Rules& r);

// All findings of an evaluated kernel (utilization and service time filled in): the class
// statement first, then the calibrated range, then each bottleneck rule.
void add_evaluated_findings(KernelAnalysis& a, const ServiceTimeModel& m, const Rules& r);

}  // namespace atomq::model::detail
