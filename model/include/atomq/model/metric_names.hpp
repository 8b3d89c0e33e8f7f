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

// Bytes the shared atomics moved: lanes x 4 for 32-bit ATOMS (ADD, POPC.INC, CAS), x 8 for
// 64-bit, so e = bytes / (lane width x N) when the SASS gives one width. Not lanes for the
// ATOMS.CAST.SPIN of a CAS loop (docs/model.md, "Active lanes e").
inline constexpr const char* kSharedAtomDataBytes = "smsp__sass_data_bytes_mem_shared_op_atom.sum";

inline constexpr const char* kCyclesActiveAvg = "sm__cycles_active.avg";
inline constexpr const char* kCyclesActiveMax = "sm__cycles_active.max";
inline constexpr const char* kCyclesActiveSum = "sm__cycles_active.sum";
inline constexpr const char* kAchievedOccupancyPct =
    "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kDurationNs = "gpu__time_duration.sum";
inline constexpr const char* kDramBytesRead = "dram__bytes_read.sum";
// Warp instructions issued by the busiest SM: its issue floor (4 warp schedulers, one each per cycle).
inline constexpr const char* kInstExecutedMax = "sm__inst_executed.max";

// Global atomics: L2 requests and the SASS instruction counts. lts is one unit per L2 slice:
// .max is the hottest slice, .sum all slices; lts__cycles_elapsed .sum / .max counts slices.
inline constexpr const char* kL2AtomRequests = "lts__t_requests_op_atom.sum";
inline constexpr const char* kL2RedRequests = "lts__t_requests_op_red.sum";
inline constexpr const char* kL2AtomRequestsMax = "lts__t_requests_op_atom.max";
inline constexpr const char* kL2RedRequestsMax = "lts__t_requests_op_red.max";
inline constexpr const char* kL2CasRequests = "lts__t_requests_op_atom_dot_cas.sum";
// 32-byte sectors the requests touch: 1 for a lane's own word, 4 for a whole line of 4-byte words.
inline constexpr const char* kL2AtomSectors = "lts__t_sectors_op_atom.sum";
inline constexpr const char* kL2RedSectors = "lts__t_sectors_op_red.sum";
// Cycles a slice's atomic unit took input: busy cycles, which under-read same-address
// serialization (docs/model.md, "The L2 queue"), so the model only cross-checks with them.
inline constexpr const char* kL2AtomicBusyMax = "lts__d_atomic_input_cycles_active.max";
inline constexpr const char* kL2AtomicBusyAvg = "lts__d_atomic_input_cycles_active.avg";
inline constexpr const char* kL2CyclesElapsedMax = "lts__cycles_elapsed.max";
inline constexpr const char* kL2CyclesElapsedSum = "lts__cycles_elapsed.sum";
// Global atomic requests leaving the SMs (after the same-address merge inside a warp).
inline constexpr const char* kL1GlobalAtomRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum";
inline constexpr const char* kL1GlobalRedRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum";
inline constexpr const char* kGlobalAtomInst = "smsp__sass_inst_executed_op_global_atom.sum";
inline constexpr const char* kGlobalRedInst = "smsp__sass_inst_executed_op_global_red.sum";
// Distinct 32-byte sectors each global memory warp instruction touched (SASS-patched, summed
// over loads, stores and atomics), the L1's load sectors and the L2's write sectors from the SMs,
// which count the loads' and the stores' the same way: the difference is the atomics' distinct
// sectors (docs/model.md, "Lanes per sector"), where the L2's requests count one per lane.
inline constexpr const char* kGlobalSectorsSass = "smsp__sass_sectors_mem_global.sum";
inline constexpr const char* kL1GlobalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kL2WriteSectors = "lts__t_sectors_srcunit_tex_op_write.sum";
// The SMs' request path to the L2 (docs/model.md, "The request port"): cycles the L1 handed a
// request to the crossbar, cycles it held one the crossbar did not take (back-pressure from the
// L2 side), the L1's elapsed cycles (all summed over SMs), and every L2 request the SMs sent.
inline constexpr const char* kL1XbarRequestActive = "l1tex__m_l1tex2xbar_req_cycles_active.sum";
inline constexpr const char* kL1XbarRequestStalled = "l1tex__m_l1tex2xbar_req_cycles_stalled.sum";
inline constexpr const char* kL1CyclesElapsedSum = "l1tex__cycles_elapsed.sum";
inline constexpr const char* kL2RequestsFromSms = "lts__t_requests_srcunit_tex.sum";
// The other atomic paths (atomic_paths.hpp). Warp-level atomic requests to a cluster peer's
// shared memory (DSMEM: generic ATOM/RED on its window, and REDAS), the cycles the SM's DSMEM
// request path was busy (busiest SM; the DSMEM unit, dsmem_unit.hpp), the TMA bulk reductions'
// instructions (SASS-patched: their byte counter would cost the collector a fifth replay pass on
// GH100 beside the request port's counters), and the L2 atomic requests to host memory (the
// system aperture).
inline constexpr const char* kDsmemAtomRequests = "l1tex__t_requests_pipe_lsu_mem_dshared_op_atom.sum";
inline constexpr const char* kDsmemRedAsyncRequests = "l1tex__t_requests_pipe_lsu_mem_dshared_op_redas.sum";
inline constexpr const char* kDsmemRequestBusyMax = "l1tex__m_l1tex2xbar_req_cycles_active_mem_dshared.max";
inline constexpr const char* kBulkReductionInst = "sm__sass_inst_executed_op_tma_red.sum";
inline constexpr const char* kL2HostAtomRequests = "lts__t_requests_aperture_sysmem_op_atom.sum";
inline constexpr const char* kL2HostRedRequests = "lts__t_requests_aperture_sysmem_op_red.sum";

// Global loads, for the load latency floor (docs/model.md, "The load latency floor"): LDG warp
// instructions, the share of L1's tag lookups that hit, and the L2's read sectors from the SMs
// with those it held (the rest came from DRAM). These four keep the collector at 4 passes on
// GH100 (the L1's per-op global-load sectors would add one).
inline constexpr const char* kGlobalLoadInst = "smsp__sass_inst_executed_op_global_ld.sum";
inline constexpr const char* kL1SectorHitRatePct = "l1tex__t_sector_hit_rate.pct";
inline constexpr const char* kL2ReadSectors = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr const char* kL2ReadSectorsHit = "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum";

}  // namespace atomq::model::metric
