#include "atomq/analyzer/metric_list.hpp"

#include "atomq/model/metric_names.hpp"

namespace atomq::analyzer {

namespace m = atomq::model::metric;

const std::vector<MetricSpec>& atomq_metrics() {
  static const std::vector<MetricSpec> list = {
      {m::kSharedAtomInst, "warp-level shared atomic instructions (ATOMS.*)", "N", true},
      {m::kSharedAtomInstAlu, "ATOMS fetch-and-op (non-CAS) warp instructions", "N_f", true},
      {m::kSharedAtomInstCas, "ATOMS.CAS warp instructions (also float atomicAdd spin loops)", "N_c, c", true},
      {m::kSharedAtomWavefronts, "data-stage wavefronts of shared atomics", "k = wavefronts / N", true},
      {m::kSharedAtomDataBytes, "bytes the shared atomics moved (lanes x lane width)", "e measured", false},
      {m::kSharedAtomWavefrontsMax, "wavefronts of the busiest SM", "U max over SMs", true},
      {m::kCyclesActiveAvg, "cycles an SM was active, mean over SMs", "T", true},
      {m::kCyclesActiveMax, "cycles an SM was active, busiest SM", "T (max)", true},
      {m::kCyclesActiveSum, "cycles an SM was active, sum over SMs", "T (sum)", true},
      {m::kAchievedOccupancyPct, "achieved occupancy (warps active / max)", "n-hat", true},
      {m::kDurationNs, "kernel duration (ns)", "time", true},
      {m::kDramBytesRead, "DRAM bytes read", "hidden memory bottleneck", false},
      {m::kInstExecutedMax, "warp instructions issued by the busiest SM", "predicted time: issue floor", false},
      {m::kL2AtomRequests, "L2 atomic requests (global ATOM)", "global atomic hot spot", false},
      {m::kL2RedRequests, "L2 reduction requests (global RED)", "global atomic hot spot", false},
      {m::kL2AtomRequestsMax, "L2 atomic requests at the hottest slice", "L2 queue: hottest slice", false},
      {m::kL2RedRequestsMax, "L2 reduction requests at the hottest slice", "L2 queue: hottest slice", false},
      {m::kL2CasRequests, "L2 CAS requests (global atomicCAS)", "L2 queue: op mix", false},
      {m::kL2AtomSectors, "L2 sectors of the ATOM requests", "L2 queue: sectors per request (spread)", false},
      {m::kL2RedSectors, "L2 sectors of the RED requests", "L2 queue: sectors per request (spread)", false},
      {m::kL2AtomicBusyMax, "cycles the hottest slice's atomic unit took input", "L2 queue: cross-check", false},
      {m::kL2AtomicBusyAvg, "cycles a slice's atomic unit took input, mean over slices", "L2 queue: spread", false},
      {m::kL2CyclesElapsedMax, "L2 cycles elapsed (one slice)", "L2 queue: time base", false},
      {m::kL2CyclesElapsedSum, "L2 cycles elapsed, summed over slices", "L2 queue: slice count", false},
      {m::kL1GlobalAtomRequests, "global ATOM requests from the SMs to L2", "L2 queue: lane merge", false},
      {m::kL1GlobalRedRequests, "global RED requests from the SMs to L2", "L2 queue: lane merge", false},
      {m::kGlobalAtomInst, "ATOMG warp instructions", "global atomic hot spot", false},
      {m::kGlobalRedInst, "REDG warp instructions", "global atomic hot spot", false},
      {m::kDsmemAtomRequests, "atomic requests to a cluster peer's shared memory (DSMEM)", "DSMEM path", false},
      {m::kDsmemRedAsyncRequests, "red.async requests to a cluster peer's shared memory", "DSMEM path", false},
      {m::kDsmemRequestBusyMax, "cycles the busiest SM's DSMEM request path was active", "DSMEM path", false},
      {m::kBulkReductionInst, "TMA bulk-reduction instructions (UBLKRED, towards the L2)", "path: bulk reduction (not modelled)", false},
      {m::kL2HostAtomRequests, "L2 atomic requests to host memory", "path: host memory (not modelled)", false},
      {m::kL2HostRedRequests, "L2 reduction requests to host memory", "path: host memory (not modelled)", false},
      {m::kGlobalLoadInst, "LDG warp instructions", "load latency floor", false},
      {m::kL1SectorHitRatePct, "share of L1 tag sectors that hit", "load latency floor: L1 residency", false},
      {m::kL2ReadSectors, "L2 read sectors from the SMs", "load latency floor: sectors per request", false},
      {m::kL2ReadSectorsHit, "L2 read sectors L2 held (the rest from DRAM)", "load latency floor: L2 residency", false},
      {m::kL1XbarRequestActive, "cycles an SM's L1 handed a request to the crossbar, summed", "L2 queue: request port", false},
      {m::kL1XbarRequestStalled, "cycles an SM's L1 held a request the crossbar did not take, summed", "L2 queue: request port", false},
      {m::kL1CyclesElapsedSum, "L1 cycles elapsed, summed over SMs", "L2 queue: request port (time base)", false},
      {m::kL2RequestsFromSms, "L2 requests from the SMs, every kind", "L2 queue: request port (the atomics' share)", false},
  };
  return list;
}

const std::vector<MetricSpec>& sector_metrics() {
  static const std::vector<MetricSpec> list = {
      {m::kGlobalSectorsSass, "distinct sectors of each global memory instruction, summed", "L2 queue: lanes per sector", false},
      {m::kL1GlobalLoadSectors, "L1 sectors of global loads", "L2 queue: lanes per sector (the loads' part)", false},
      {m::kL2WriteSectors, "L2 write sectors from the SMs (global stores)", "L2 queue: lanes per sector (the stores' part)", false},
  };
  return list;
}

std::vector<std::string> atomq_metric_names() {
  std::vector<std::string> names;
  for (const MetricSpec& spec : atomq_metrics()) names.push_back(spec.name);
  return names;
}

std::vector<MetricSpec> collector_metrics(bool sector_counters) {
  std::vector<MetricSpec> specs = atomq_metrics();
  if (sector_counters) specs.insert(specs.end(), sector_metrics().begin(), sector_metrics().end());
  return specs;
}

std::vector<std::string> collector_metric_names(bool sector_counters) {
  std::vector<std::string> names;
  for (const MetricSpec& spec : collector_metrics(sector_counters)) names.push_back(spec.name);
  return names;
}

std::string ncu_metrics_argument(bool sector_counters) {
  std::string arg;
  for (const std::string& name : collector_metric_names(sector_counters)) {
    if (!arg.empty()) arg += ',';
    arg += name;
  }
  return arg;
}

}  // namespace atomq::analyzer
