// The counter names the model reads, in one place. A KernelProfile stores counters by their
// full name including the rollup (".sum", ".avg", ".max"), so any collector (in-process CUPTI,
// injection, an ncu CSV import) can fill it. What each means on GH100: docs/model.md, "Inputs
// from counters".
#pragma once

namespace atomq::model::metric {

// Warp-level shared atomic instructions (ATOMS.*), all of them and split by kind.
// On GH100 total == dot_alu + dot_cas (checked by the model).
inline constexpr const char* kSharedAtomInst = "smsp__inst_executed_op_shared_atom.sum";
inline constexpr const char* kSharedAtomInstAlu = "smsp__inst_executed_op_shared_atom_dot_alu.sum";
inline constexpr const char* kSharedAtomInstCas = "smsp__inst_executed_op_shared_atom_dot_cas.sum";

// Data-stage wavefronts of shared atomics: wavefronts per instruction is the serialization k.
// .max is the busiest SM (l1tex is one unit per SM), used for the max-over-SMs utilization.
inline constexpr const char* kSharedAtomWavefronts =
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum";
inline constexpr const char* kSharedAtomWavefrontsMax =
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.max";

// Thread-level shared atomic operations O (e = O / N). No hardware counter exists on GH100 and
// no atomq collector fills this derived name yet (the CUPTI SASS Metrics API could); a profile
// that carries it, or the SASS name where that exists, gets a measured e instead of e = 32.
inline constexpr const char* kSharedAtomThreadOps = "atomq__thread_ops_shared_atom.sum";
inline constexpr const char* kSharedAtomThreadOpsSass =
    "smsp__sass_thread_inst_executed_op_shared_atom.sum";

inline constexpr const char* kCyclesActiveAvg = "sm__cycles_active.avg";
inline constexpr const char* kCyclesActiveMax = "sm__cycles_active.max";
inline constexpr const char* kCyclesActiveSum = "sm__cycles_active.sum";
inline constexpr const char* kAchievedOccupancyPct =
    "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kDurationNs = "gpu__time_duration.sum";
inline constexpr const char* kDramBytesRead = "dram__bytes_read.sum";

// Global atomics: L2 requests and the SASS instruction counts.
inline constexpr const char* kL2AtomRequests = "lts__t_requests_op_atom.sum";
inline constexpr const char* kL2RedRequests = "lts__t_requests_op_red.sum";
inline constexpr const char* kGlobalAtomInst = "smsp__sass_inst_executed_op_global_atom.sum";
inline constexpr const char* kGlobalRedInst = "smsp__sass_inst_executed_op_global_red.sum";

}  // namespace atomq::model::metric
