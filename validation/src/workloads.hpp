// Factories of the validation workloads (counting_workloads.cpp, other_workloads.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inputs.hpp"
#include "workload.hpp"

namespace atomq::validation {

std::unique_ptr<Workload> make_count_workload(std::vector<std::uint32_t> ids, std::uint32_t num_ids,
                                              std::uint32_t private_counters);
std::unique_ptr<Workload> make_binning_workload(const std::vector<Position>& p, std::uint32_t cells_x,
                                                std::uint32_t cells_y);
std::unique_ptr<Workload> make_image_workload(const std::vector<std::uint32_t>& pixels);
std::unique_ptr<Workload> make_hash_workload(const std::vector<std::uint32_t>& keys, std::uint32_t capacity);
std::unique_ptr<Workload> make_float_hist_workload(const std::vector<float>& values, std::uint32_t bins);
std::unique_ptr<Workload> make_lock_workload(const std::vector<std::uint32_t>& values);
// planes of 2 in_h x 2 in_w output gradients (`grad`, plane by plane, row by row) into
// planes of in_h x in_w (upsample_workload.cpp).
std::unique_ptr<Workload> make_upsample_workload(const std::vector<float>& grad, std::uint32_t planes,
                                                 std::uint32_t in_h, std::uint32_t in_w);
// A keyed reduction through a global CAS loop: n values, keys all 0 (keys_count 1) or uniform
// over keys_count (cas_loop_workload.cpp); variants cas_loop, combined, copies (the words spread
// over `copies` replicas), no_atomics.
enum class CasLoopKind { kProduct, kFloatMax, kFloatAdd };
std::unique_ptr<Workload> make_cas_loop_workload(CasLoopKind kind, std::size_t n, std::uint32_t keys_count,
                                                 std::uint64_t seed, std::uint32_t copies);
// A histogram of n uniform values over `bins` kept in a cluster peer's shared memory
// (peer_histogram_workload.cpp); variants dsmem_atomics, block_local, no_atomics.
std::unique_ptr<Workload> make_peer_histogram_workload(std::size_t n, std::uint32_t bins, std::uint64_t seed);
// iterations per thread; stride 1 (k = 1) or 32 (k = 32); variants "mM" and "mM_no_atomics".
std::unique_ptr<Workload> make_sweep_workload(int iterations, int address_stride);
// m FMA steps per returning global atomicAdd whose result the chain takes up, each sending lane
// its own line, `atomic_lanes` (1 or 32) of each warp sending; variants as the threshold sweep's.
std::unique_ptr<Workload> make_round_trip_sweep_workload(int iterations, int atomic_lanes);

// The workload of a case of the table (cases.cpp), its input generated.
std::unique_ptr<Workload> make_workload(const std::string& case_name);

}  // namespace atomq::validation
