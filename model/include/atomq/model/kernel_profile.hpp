// KernelProfile: what the analyzer measured for one kernel launch, as the model consumes it.
// Versioned JSON: {"format": "atomq.kernel_profile", "version": 1, ...} (docs/model.md).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "atomq/common/device_info.hpp"
#include "atomq/model/atomic_paths.hpp"
#include "atomq/model/instruction_profile.hpp"
#include "atomq/common/enum_names.hpp"
#include "atomq/common/global_atomic.hpp"
#include "atomq/common/shared_atomic.hpp"

namespace atomq::model {

inline constexpr const char* kKernelProfileFormat = "atomq.kernel_profile";
inline constexpr int kKernelProfileVersion = 1;

// Where the numbers came from.
enum class CounterSource { kInProcess, kInjected, kNcuCsv, kSynthetic };
constexpr std::array<EnumName<CounterSource>, 4> enum_names(CounterSource) {
  return {{{CounterSource::kInProcess, "in_process"},
           {CounterSource::kInjected, "injected"},
           {CounterSource::kNcuCsv, "ncu_csv"},
           {CounterSource::kSynthetic, "synthetic"}}};
}

struct LaunchConfig {
  std::array<long long, 3> grid{1, 1, 1};
  std::array<int, 3> block{1, 1, 1};
  int registers_per_thread = 0;             // 0 = unknown
  long long shared_mem_bytes_per_block = 0;  // static + dynamic
  int max_active_blocks_per_sm = 0;          // occupancy calculator; 0 = unknown

  long long threads_per_block() const {
    return static_cast<long long>(block[0]) * block[1] * block[2];
  }
  long long blocks() const { return grid[0] * grid[1] * grid[2]; }
};

// Which process of a multi-process program launched the kernel: `atomq analyze` merges the
// profile streams of every process it reaches.
struct ProcessTag {
  long long pid = 0;
  std::optional<int> rank;    // from the launcher's variable, when one was set
  std::string rank_variable;  // "RANK", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"
};

// A kernel that ran as a node of a CUDA graph: which launch of a graph, which kernel node.
struct GraphNodeTag {
  long long graph_launch = 0;  // the process's graph launches, counted from 0
  int node = 0;                // among the graph's kernel nodes, in execution order
  int nodes = 0;               // kernel nodes in the graph
  // Set when the profile is one range over the whole graph launch (every kernel node, `node`
  // 0): the kernel nodes' names, in execution order.
  std::vector<std::string> kernels;
};

// The profile carries name, chip, compute capability, SM count, warps per SM, the SM clock
// during the run and the reachable DRAM bandwidth of atomq's one device description.
using atomq::DeviceInfo;

struct KernelProfile {
  std::string kernel_name;
  // The kernel's mangled symbol as the driver launched it; empty when the source does not
  // give it (an ncu CSV names kernels demangled). Lets the SASS listing dump only this kernel.
  std::string symbol;
  // This launch among its kernel's direct launches in its process, in program order, counted
  // from 0 (CUDA graph nodes are not counted); set by the collector. Per-instruction counts name
  // the launches they counted the same way (instruction_profile.hpp).
  std::optional<long long> symbol_launch;
  LaunchConfig launch;
  DeviceInfo device;
  CounterSource source = CounterSource::kInProcess;
  std::string source_detail;   // e.g. the program and launch index, or the CSV file
  std::optional<ProcessTag> process;  // set by the injection collector
  std::optional<GraphNodeTag> graph;  // launched by a CUDA graph
  // The NVTX push/pop ranges open on the launching thread, outermost first (e.g. PyTorch's op
  // under torch.autograd.profiler.emit_nvtx()); set by the injection collector.
  std::vector<std::string> nvtx;

  // Raw counters keyed by full metric name with rollup, e.g. "sm__cycles_active.max".
  std::map<std::string, double> counters;

  // From the SASS of the kernel: kPopcInc when the non-CAS shared atomics are
  // ATOMS.POPC.INC (result unused: same-address lanes merge), kAdd otherwise.
  std::optional<OpVariant> shared_atomic_variant;
  // From the SASS of the kernel: bytes per lane of its shared atomics (4 or 8) when they all
  // have one width and none is a CAS loop's CAST.SPIN; with the data-bytes counter, e.
  std::optional<int> shared_atomic_lane_bytes;
  // From the SASS of the kernel: it has a shared CAS loop (ATOMS.CAST.SPIN).
  std::optional<bool> shared_cas_spin;
  // From the SASS of the kernel: every global atomic it issues is already aggregated in the warp
  // (one elected lane after a vote and a population count, as ptxas does for a warp-uniform
  // address): there are no same-address lanes left to merge.
  std::optional<bool> global_atomic_warp_aggregated;
  // From the SASS of the kernel: it has a global atomic exchange (ATOMG.EXCH), as a spin lock's
  // release (atomicExch(&lock, 0)) compiles to.
  std::optional<bool> global_atomic_exch;
  // From the SASS of the kernel: the global atomic (REDG/ATOMG) that issues most, which
  // picks the L2 section's service time (counters cannot tell f32 from u32).
  std::optional<GlobalAtomicOp> global_atomic_op;
  // The SASS opcode global_atomic_op stands in for (e.g. "REDG.E.XOR.STRONG.GPU", whose
  // nearest calibrated op is red.or.u32); empty when the kernel issues that op itself.
  std::string global_atomic_op_stands_in_for;
  // From the SASS of the kernel: its atomic instructions by path (atomic_paths.hpp), counted in
  // the listing (static, not executions); empty without a listing.
  std::map<AtomicPath, int> sass_atomic_paths;
  // Distinct global addresses the atomics update (e.g. a histogram's bins), known for
  // built-in targets or given by the user: the L2 what-ifs' merge traffic.
  std::optional<double> global_atomic_addresses;
  // Useful updates the kernel performs (known for built-in targets or given by the user):
  // gives CAS retry amplification.
  std::optional<double> useful_updates;
  // Per-instruction counts from a run of its own (analyzer/src/instruction_profiler.cpp).
  std::optional<InstructionProfile> instructions;

  std::optional<double> counter(const std::string& name) const {
    auto it = counters.find(name);
    if (it == counters.end()) return std::nullopt;
    return it->second;
  }
  // A counter the kernel may not have moved (or the collector not read): 0 then.
  double counter_or_zero(const std::string& name) const { return counter(name).value_or(0.0); }
};

// A counter name carries its rollup: "<metric>.<rollup>[.<submetric>]" (e.g. ".sum").
bool is_counter_name(const std::string& name);

// Whether the counters show atomics: shared, global or DSMEM atomic instructions or bulk reductions. Only such
// kernels need their SASS (the atomic hints) or a per-instruction run.
bool executes_atomics(const KernelProfile& profile);

// A malformed profile document. what() names the source and the field.
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The document as JSON (what the run document and the profile stream embed) and as text.
nlohmann::json kernel_profile_to_json(const KernelProfile& profile);
std::string serialize_kernel_profile(const KernelProfile& profile);  // pretty JSON
// Strict: format, version, types and required fields are checked; throws ProfileError.
// source_name names the document in errors (a file, or a file and a line).
KernelProfile kernel_profile_from_json(const nlohmann::json& doc, const std::string& source_name);
KernelProfile parse_kernel_profile(const std::string& json_text, const std::string& source_name);

// The "instructions" part alone, as the per-instruction run's collector message carries it;
// `field` names it in errors.
nlohmann::json instruction_profile_to_json(const InstructionProfile& profile);
InstructionProfile instruction_profile_from_json(const nlohmann::json& doc, const std::string& source_name,
                                                 const std::string& field = "instructions");
KernelProfile load_kernel_profile(const std::string& path);

// Every check the reader makes, on a profile built in memory (the ncu import): what one path
// makes, every reader takes back. Throws ProfileError naming source_name and the field.
void validate_kernel_profile(const KernelProfile& profile, const std::string& source_name);

}  // namespace atomq::model
