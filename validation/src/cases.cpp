// The one table of validation cases: name, workload, input (with its seed), variants and the
// factory that generates the input. Sizes and seeds are this suite's own: none is a point of
// the calibration grid (calibration/src/sweep_plan.cpp runs only the microbenchmark kernels).
#include <fmt/format.h>

#include <functional>

#include "atomq/validation/validation.hpp"
#include "held_out_workloads.hpp"
#include "workloads.hpp"

namespace atomq::validation {

namespace {

using R = VariantRole;
using W = model::WhatIfId;

struct CaseEntry {
  CaseSpec spec;
  std::function<std::unique_ptr<Workload>()> make;
};

constexpr std::uint32_t kGraphVertices = 1u << 20;
constexpr std::size_t kGraphEdges = 25'165'824;   // 24 per vertex
constexpr std::uint32_t kMatrixRows = 1u << 18;
constexpr std::size_t kMatrixNonzeros = 20'000'000;
constexpr std::uint32_t kHashCapacity = 1u << 22;
constexpr std::size_t kParticles = 16'777'216;
constexpr std::size_t kImagePixels = 3840 * 2160;
constexpr std::size_t kFloatValues = 33'554'432;
constexpr std::size_t kLockValues = 1'048'576;
constexpr std::uint32_t kUpsamplePlanes = 512, kUpsampleInSide = 128;  // a batch of 8 x 64 channels

std::vector<VariantSpec> counting_variants(const std::string& fix, const std::string& fix_text,
                                          std::vector<model::WhatIfId> predicted_by) {
  return {{"global_atomics", R::kBaseline, "one global atomicAdd per id", ""},
          {fix, R::kFix, fix_text, "global_atomics", std::move(predicted_by)},
          {"no_atomics", R::kAblation, "the same reads, no atomic", "global_atomics"}};
}

CaseEntry hash_case(const std::string& name, double load, double power, const std::string& keys) {
  const auto distinct = static_cast<std::size_t>(load * kHashCapacity);
  return {{name, "hash-table build, CAS + linear probing",
           fmt::format("{} distinct keys in {} slots (load {}), each inserted once plus {} {} repeats, seed 1301",
                       distinct, kHashCapacity, load, distinct, keys),
           {{"cas_probe", R::kBaseline, "atomicCAS claims a slot, atomicAdd its count", ""},
            {"load_then_cas", R::kFix, "probe with plain loads, atomicCAS only on an empty slot", "cas_probe",
             {W::kLoadBeforeCas}},
            {"no_atomics", R::kAblation, "plain store at the home slot", "cas_probe"}}},
          [=] { return make_hash_workload(hash_insert_stream(distinct, power, 1301), kHashCapacity); }};
}

// A keyed reduction through a global CAS loop, into one word or spread over kCasLoopKeys.
constexpr std::size_t kCasLoopOneAddressValues = 65'536, kCasLoopSpreadValues = 16'777'216;
constexpr std::uint32_t kCasLoopKeys = 1024;
// The copies of the spread_copies what-if (Rules::l2_replication_slices): the fix it names.
constexpr std::uint32_t kCasLoopCopies = 8;
constexpr std::size_t kPeerHistValues = 16'777'216;

CaseEntry cas_loop_case(const std::string& name, const std::string& op_text, CasLoopKind kind, bool one_address,
                        std::uint64_t seed) {
  const std::size_t n = one_address ? kCasLoopOneAddressValues : kCasLoopSpreadValues;
  const std::uint32_t keys = one_address ? 1u : kCasLoopKeys;
  return {{name, "keyed reduction through a global CAS loop: " + op_text,
           one_address ? fmt::format("{} values into one word, seed {}", n, seed)
                       : fmt::format("{} values, keys uniform over {} words, seed {}", n, keys, seed),
           {{"cas_loop", R::kBaseline, "one global CAS loop per value", ""},
            {"combined", R::kFix, "equal keys combined in the warp, then per block in shared memory; one global CAS "
                                  "loop per key and block", "cas_loop", {W::kCombineBeforeCas}},
            {"no_atomics", R::kAblation, "the same reads, no atomic", "cas_loop"}}},
          [=] { return make_cas_loop_workload(kind, n, keys, seed, kCasLoopCopies); }};
}

// The spread keyed reduction again, with the fix atomq recommends for it: the words spread over
// copies in lines of other slices, folded at the end (predictions in docs/validation.md before
// the first run).
CaseEntry cas_copies_case(const std::string& name, const std::string& op_text, CasLoopKind kind, std::uint64_t seed) {
  return {{name, "keyed reduction through a global CAS loop, the words spread over copies: " + op_text,
           fmt::format("{} values, keys uniform over {} words, seed {}", kCasLoopSpreadValues, kCasLoopKeys, seed),
           {{"cas_loop", R::kBaseline, "one global CAS loop per value", ""},
            {"copies", R::kFix,
             fmt::format("the words spread over {} copies (block % {}), folded by the last block", kCasLoopCopies,
                         kCasLoopCopies),
             "cas_loop", {W::kSpreadCopies}},
            {"no_atomics", R::kAblation, "the same reads, no atomic", "cas_loop"}}},
          [=] { return make_cas_loop_workload(kind, kCasLoopSpreadValues, kCasLoopKeys, seed, kCasLoopCopies); }};
}

std::vector<VariantSpec> sweep_variants(const std::vector<int>& ms, const char* atomic = "shared atomic") {
  std::vector<VariantSpec> v;
  for (int m : ms) {
    const std::string point = "m" + std::to_string(m);
    v.push_back({point, R::kSweepPoint, fmt::format("{} FMA steps per {}", m, atomic), ""});
    v.push_back({point + "_no_atomics", R::kAblation, fmt::format("{} FMA steps, no atomic", m), point});
  }
  return v;
}

// Held-out round 2: eight workloads written after the model, each fix the one a performance
// engineer would write, named by the what-ifs that describe its change before anything is measured.
CaseEntry held_out(CaseSpec spec, std::function<std::unique_ptr<Workload>()> make, const char* round) {
  spec.held_out = round;
  return {std::move(spec), std::move(make)};
}

std::vector<VariantSpec> held_out_variants(const std::string& baseline, const std::string& baseline_text,
                                           const std::string& fix, const std::string& fix_text,
                                           std::vector<model::WhatIfId> predicted_by, const std::string& ablation,
                                           const std::string& ablation_text) {
  return {{baseline, R::kBaseline, baseline_text, ""},
          {fix, R::kFix, fix_text, baseline, std::move(predicted_by)},
          {ablation, R::kAblation, ablation_text, baseline}};
}

void add_held_out_round2(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"frontier_push", "a BFS level's frontier pushed through one global tail counter",
                        "16777216 edge targets uniform over 4194304 vertices, half of them visited, seed 2201",
                        held_out_variants("global_tail", "one atomicAdd on the tail per pushed vertex", "warp_aggregated",
                                          "one atomicAdd per warp (ballot, popc, shuffle)",
                                          {W::kAggregateInWarp, W::kAggregateHotLanes}, "no_atomics",
                                          "each pushed vertex to its edge's own slot")},
                       [] { return make_frontier_workload(16'777'216, 1u << 22, 2201); }, "round2"));
  e.push_back(held_out({"ticket_queue", "a work queue dequeued by atomicAdd on one ticket (tasks of 16 words)",
                        "1048576 tasks of 16 words uniform below 2^20, seed 2202",
                        held_out_variants("ticket_per_thread", "each thread takes one task per atomicAdd",
                                          "ticket_per_warp", "lane 0 takes 32 tasks per atomicAdd for its warp",
                                          {W::kAggregateInWarp, W::kAggregateHotLanes}, "static_tasks",
                                          "tasks assigned by thread index")},
                       [] { return make_ticket_workload(1u << 20, 2202); }, "round2"));
  e.push_back(held_out({"triangle_count", "triangle counting into one global 64-bit counter",
                        "65536 vertices in communities of 64 (edge probability 0.3) plus 262144 random edges, seed 2203",
                        held_out_variants("global_counter", "one atomicAdd per triangle found", "warp_sum",
                                          "counted per thread, one atomicAdd per warp",
                                          {W::kPrivatize, W::kAggregateInWarp}, "no_atomics", "counted, never added")},
                       [] { return make_triangle_workload(1u << 16, 64, 0.3, 262'144, 2203); }, "round2"));
  e.push_back(held_out({"word_count_shared_hash", "a word count in a per-block shared hash table (CAS on the key)",
                        "16777216 tokens over 1024 words, power law floor(1024 u^3), seed 2204",
                        held_out_variants("shared_cas", "every token claims or finds its slot and adds 1",
                                          "warp_merged", "equal words of a warp merged first (__match_any_sync)",
                                          {W::kNoConflicts, W::kReplicate}, "no_atomics", "the same reads and hash")},
                       [] { return make_word_count_workload(16'777'216, 1024, 3.0, 2204); }, "round2"));
  e.push_back(held_out({"group_stats_bucket_locks", "sum, count, min and max per group under a spin lock per group",
                        "4194304 values uniform below 1000 in 1024 uniform groups, seed 2205",
                        held_out_variants("bucket_locks", "the group's lock around its four fields", "lock_free",
                                          "atomicAdd, atomicAdd, atomicMin, atomicMax", {W::kLockFree}, "unlocked",
                                          "the same updates without lock or atomics (racy)")},
                       [] { return make_group_stats_workload(4'194'304, 1024, 2205); }, "round2"));
  e.push_back(held_out({"segment_max_cas", "a segmented float max through a global CAS loop (sorted segments)",
                        "16777216 values uniform in [0, 1) over 65536 segments of random length, seed 2206",
                        held_out_variants("cas_loop", "CAS max(value, current) until the CAS holds", "native_max",
                                          "atomicMax on the bit pattern (non-negative floats)",
                                          {W::kNativeFetchAndOp, W::kCasLoopNativeBestCase, W::kCasLoopNativeWorstCase},
                                          "no_atomics", "the same reads")},
                       [] { return make_segment_max_workload(16'777'216, 65'536, 2206); }, "round2"));
  e.push_back(held_out({"argmax_cas64", "an argmax per bucket through a 64-bit global CAS loop (packed value, index)",
                        "16777216 values uniform in [0, 1) in 4096 uniform buckets, seed 2207",
                        held_out_variants("cas_loop", "CAS max(key, current) until the CAS holds", "load_then_cas",
                                          "read first, CAS only while the key is larger", {W::kLoadBeforeCas},
                                          "no_atomics", "the same reads and keys")},
                       [] { return make_argmax_workload(16'777'216, 4096, 2207); }, "round2"));
  e.push_back(held_out({"compact_shared_tail", "a stream compaction through a block's shared tail counter",
                        "33554432 words uniform, a quarter kept (low two bits 0), tiles of 4096, seed 2208",
                        held_out_variants("shared_tail", "one shared atomicAdd per kept value", "warp_tail",
                                          "one shared atomicAdd per warp (ballot, popc)",
                                          {W::kNoConflicts, W::kReplicate}, "no_atomics",
                                          "each kept value to its own slot of the tile")},
                       [] { return make_compact_workload(33'554'432, 2208); }, "round2"));
}

// Held-out round 3: written after round 2's results and the model changes they led to (locks over
// many words, warp-aggregated atomics), predicted before anything of theirs is measured.
void add_held_out_round3(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"chain_lock_counts", "key counts in hash buckets of 4 slots under a spin lock per bucket",
                        "8388608 keys of 32768 ids, power law floor(32768 u^2) scattered, 8192 buckets, seed 3301",
                        held_out_variants("bucket_locks", "the bucket's lock around its scan and count", "lock_free",
                                          "atomicCAS on a slot's key, atomicAdd on its count", {W::kLockFree},
                                          "unlocked", "the same scan and updates without lock or atomics (racy)")},
                       [] { return make_chain_lock_workload(8'388'608, 8192, 2.0, 3301); }, "round3"));
  e.push_back(held_out({"kmeans_accumulate", "the k-means update step: float sums of 4 coordinates and a count per centroid",
                        "4194304 points, coordinates uniform in {0,1,2,3}, 64 centroids by power law floor(64 u^1.5), "
                        "seed 3302",
                        held_out_variants("global_atomics", "a float atomicAdd per coordinate, an atomicAdd per point",
                                          "block_private", "the block's sums and counts in shared memory, merged once",
                                          {W::kPrivatize}, "no_atomics", "the same reads, summed in registers")},
                       [] { return make_kmeans_workload(4'194'304, 64, 1.5, 3302); }, "round3"));
}

// Held-out round 4: written after round 3's results, two u32 counts whose bins fit in shared
// memory (a clustered voxel grid, a text's letter pairs), predicted before anything of theirs is
// measured.
void add_held_out_round4(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"voxel_occupancy", "voxel occupancy: points counted per voxel of a 16 x 16 x 16 grid (u32 counts)",
                        "16777216 points, each with probability 1/2 in the 3 x 3 x 3 voxels around one of 8 cluster "
                        "centres, else uniform over the 4096 voxels; packed x | y << 8 | z << 16, seed 4401",
                        held_out_variants("global_atomics", "one global atomicAdd per point", "block_private",
                                          "the block's 4096 counts in shared memory (16 KiB), merged once",
                                          {W::kPrivatize}, "no_atomics",
                                          "the same reads and voxel index, summed in registers")},
                       [] { return make_voxel_workload(16'777'216, 8, 4401); }, "round4"));
  e.push_back(held_out({"bigram_count", "bigram counts of a text: adjacent letter pairs into 32 x 32 bins (u32 counts)",
                        "33554432 letters of a 32-letter alphabet by power law floor(32 u^2), each adjacent pair (a, b) "
                        "into bin a * 32 + b, seed 4402",
                        held_out_variants("global_atomics", "one global atomicAdd per adjacent pair", "block_private",
                                          "the block's 1024 counts in shared memory, merged once", {W::kPrivatize},
                                          "no_atomics", "the same reads and bin index, summed in registers")},
                       [] { return make_bigram_workload(33'554'432, 2.0, 4402); }, "round4"));
}

// Held-out round 5: written after round 4's results, two float reductions: a depth-dose profile
// whose fix privatizes float adds (a CAS loop in shared memory on sm_90), and each row's max of a
// score matrix through a global CAS loop whose fix reduces the warp first. Predicted before
// anything of theirs is measured.
void add_held_out_round5(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"energy_deposit", "depth-dose profile: particle energies summed per depth bin (float adds)",
                        "16777216 particles, each with probability 0.4 in the 15 peak bins 381-395 (triangular "
                        "around 388), else uniform over bins 0-379 of 512; energies 1-8 whole units, seed 5501",
                        held_out_variants("global_atomics", "one global float atomicAdd per particle", "block_private",
                                          "the block's 512 bins in shared memory (float atomicAdd), merged once",
                                          {W::kPrivatize}, "no_atomics",
                                          "the same reads and bin, summed in registers")},
                       [] { return make_energy_deposit_workload(16'777'216, 0.4, 5501); }, "round5"));
  e.push_back(held_out({"row_max_logits", "row max of a score matrix through a global float-max CAS loop",
                        "65536 rows of 256 uniform scores in [0, 1), seed 5502",
                        held_out_variants("cas_loop", "one global CAS loop per score (read, skip if not larger, CAS)",
                                          "warp_first", "the warp's 32 scores (one row) reduced by shuffles, one CAS "
                                          "loop per warp", {W::kAggregateHotLanes, W::kAggregateInWarp,
                                          W::kCombineBeforeCas}, "no_atomics", "the same reads, summed in registers")},
                       [] { return make_row_max_workload(65'536, 5502); }, "round5"));
}

// Held-out round 6: written after round 5's results and the privatize what-if's hot-words term
// (f297465): a graph layer's float aggregation whose fix privatizes only the hub nodes, region
// areas of a label image whose fix merges a warp's equal labels, and a loss reduced into one float
// whose fix reduces the block first. Predicted before anything of theirs is measured.
void add_held_out_round6(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"gnn_edge_aggregate", "a graph layer's message aggregation: edge weights summed per node (float adds)",
                        "16777216 edges into 2097152 nodes, destinations floor(N u^4) (hubs at low ids, "
                        "degree-ordered), weights 1-4 whole units, seed 6601",
                        held_out_variants("global_atomics", "one global float atomicAdd per edge", "hub_privatized",
                                          "the 4096 hub nodes' sums in shared memory per block, the rest global",
                                          {W::kPrivatize}, "no_atomics", "the same reads, summed in registers")},
                       [] { return make_edge_aggregate_workload(16'777'216, 1u << 21, 4.0, 6601); }, "round6"));
  e.push_back(held_out({"label_area", "region areas of a label image: pixels counted per label (u32 counts)",
                        "a 4096 x 4096 label image, labels in runs of 8-64 pixels along the rows, each run's label "
                        "uniform below 65536, seed 6602",
                        held_out_variants("global_atomics", "one global atomicAdd per pixel", "warp_merged",
                                          "equal labels of a warp merged by __match_any_sync, one add each",
                                          {W::kAggregateInWarp, W::kAggregateHotLanes}, "no_atomics",
                                          "the same reads, summed in registers")},
                       [] { return make_label_area_workload(4096u * 4096u, 4096, 65'536, 6602); }, "round6"));
  e.push_back(held_out({"loss_sum", "a loss reduced into one float by a global atomicAdd per sample",
                        "8388608 losses of 0 or 1 unit, uniform, seed 6603",
                        held_out_variants("global_atomics", "one global float atomicAdd per sample", "block_reduced",
                                          "the block's sum by shuffles and shared memory, one atomicAdd per block",
                                          {W::kAggregateInWarp, W::kAggregateHotLanes, W::kPrivatize}, "no_atomics",
                                          "the same reads, summed in registers")},
                       [] { return make_loss_sum_workload(8'388'608, 6603); }, "round6"));
}

// Held-out round 7: written after round 6's results and the live H200 suite of 2026-12-06: a COO
// sparse matrix-vector product whose fix reduces a warp's rows by a segmented scan, the scatter of
// a bucket sort (returning atomics) whose fix ranks a tile's keys in shared memory, and a visited
// bitmap (atomicOr) whose fix merges a warp's bits of one word. Predicted before anything of theirs
// is measured.
void add_held_out_round7(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"coo_spmv", "a sparse matrix-vector product in COO form: y[row] += val * x[col] (float adds)",
                        "16777216 nonzeros sorted by row over up to 1048576 rows of random length (uniform cut points), "
                        "columns uniform, values 1-4 and x 1-2 whole units, seed 7701",
                        held_out_variants("global_atomics", "one global float atomicAdd per nonzero", "warp_segmented",
                                          "a warp's rows summed by a segmented shuffle scan, one atomicAdd per row "
                                          "and warp", {W::kAggregateInWarp, W::kAggregateHotLanes}, "no_atomics",
                                          "the same reads and products, summed in registers")},
                       [] { return make_coo_spmv_workload(16'777'216, 1u << 20, 7701); }, "round7"));
  e.push_back(held_out({"bucket_scatter", "the scatter of a bucket sort: a returning atomicAdd on the bucket's fill "
                        "count gives each key its slot",
                        "16777216 uniform u32 keys into 256 buckets (the top 8 bits), seed 7702",
                        held_out_variants("global_atomics", "one returning global atomicAdd per key", "tile_ranked",
                                          "a tile of 4096 keys ranked in shared memory, one global atomicAdd per "
                                          "bucket and tile", {W::kPrivatize}, "no_atomics",
                                          "the same reads and writes, each key to its own index")},
                       [] { return make_bucket_scatter_workload(16'777'216, 7702); }, "round7"));
  e.push_back(held_out({"visited_bitmap", "a visited bitmap: each id sets its bit by a global atomicOr on its word",
                        "16777216 ids floor(V u^3) over V = 4194304 vertices (hubs at low ids), seed 7703",
                        held_out_variants("global_atomics", "one global atomicOr per id", "warp_merged",
                                          "a warp's ids of one word merged by __match_any_sync and __reduce_or_sync, "
                                          "one atomicOr each", {W::kAggregateInWarp, W::kAggregateHotLanes},
                                          "no_atomics", "the same reads, folded in registers")},
                       [] { return make_visited_bitmap_workload(16'777'216, 1u << 22, 3.0, 7703); }, "round7"));
}

// Held-out round 8: written after the lanes-per-sector term (2026-12-07): a pixel histogram of a
// smooth image (a warp's pixels on a few neighbouring bins; fix: the warp's pixels of one bin
// merged) and of a noisy one (a warp's pixels on distinct bins; fix: the block's histogram in
// shared memory). Predicted before anything of theirs is measured.
void add_held_out_round8(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"smooth_pixel_hist", "a 32768-bin histogram of a smooth image's 15-bit intensities, one "
                        "global atomicAdd per pixel",
                        "16777216 pixels in rows of 4096, intensity (7x + 131y) / 16 plus a random 0 or 1, wrapped "
                        "to 15 bits, seed 8801",
                        held_out_variants("global_atomics", "one global atomicAdd per pixel", "warp_merged",
                                          "a warp's pixels of one bin merged by __match_any_sync, one atomicAdd of "
                                          "their number each", {W::kAggregateInWarp, W::kAggregateHotLanes},
                                          "no_atomics", "the same reads, folded in registers")},
                       [] { return make_smooth_pixel_hist_workload(16'777'216, 4096, 8801); }, "round8"));
  e.push_back(held_out({"noisy_pixel_hist", "a 32768-bin histogram of uniform noise, one global atomicAdd per pixel",
                        "16777216 uniform 15-bit values, seed 8802",
                        held_out_variants("global_atomics", "one global atomicAdd per pixel", "block_private",
                                          "the block's 32768 bins in shared memory (128 KB, 1024 threads), one "
                                          "atomicAdd per used bin at the end", {W::kPrivatize}, "no_atomics",
                                          "the same reads, folded in registers")},
                       [] { return make_noisy_pixel_hist_workload(16'777'216, 8802); }, "round8"));
}

// Held-out round 9: two reductions over sorted ids, a warp's 32 adjacent elements on a few
// neighbouring words: the counts of a sorted key array (u32) and the charge deposition of particles
// sorted by cell (float); each fix merges a warp's elements of one id. Predicted before anything of
// theirs is measured.
void add_held_out_round9(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"sorted_key_count", "counts of a sorted key array (CSR row offsets from sorted COO rows), one "
                        "global atomicAdd per key",
                        "16777216 sorted keys from 0, each next key one higher with probability 1/6 (runs of mean 6, "
                        "about 2.8M keys), seed 9901",
                        held_out_variants("global_atomics", "one global atomicAdd per key", "warp_merged",
                                          "a warp's equal keys merged by __match_any_sync, one atomicAdd of their "
                                          "number each", {W::kAggregateInWarp, W::kAggregateHotLanes}, "no_atomics",
                                          "the same reads, folded in registers")},
                       [] { return make_sorted_key_count_workload(16'777'216, 6, 9901); }, "round9"));
  e.push_back(held_out({"sorted_particle_deposit", "particle-in-cell charge deposition of particles sorted by cell, "
                        "one global float atomicAdd per particle",
                        "16777216 particles on sorted cells from 0, each next cell one higher with probability 0.2 "
                        "(about 3.4M cells), charges uniform in [0.5, 1.5), seed 9902",
                        held_out_variants("global_atomics", "one global float atomicAdd per particle", "warp_merged",
                                          "a warp's particles of one cell merged by __match_any_sync, their charges "
                                          "summed in lane order by shuffles, one atomicAdd each",
                                          {W::kAggregateInWarp, W::kAggregateHotLanes}, "no_atomics",
                                          "the same reads, folded in registers")},
                       [] { return make_sorted_particle_deposit_workload(16'777'216, 5, 9902); }, "round9"));
}

// Held-out round 10: two kernels whose global loads and global atomics share the SMs' path to L2:
// a transposed sparse matrix-vector product from CSR (random columns; fix: the transpose stored as
// CSC, a gather without atomics) and the backward of an embedding lookup over Zipf-skewed rows
// (fix: the lookups sorted by row, a run of equal rows summed before its adds). Predicted before
// anything of theirs is measured.
void add_held_out_round10(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"transpose_spmv", "a transposed sparse matrix-vector product y = A^T x from CSR: "
                        "y[col] += val * x[row] per nonzero (float adds)",
                        "16777216 nonzeros over 1048576 rows (each nonzero's row uniform, rows sorted, about 16 per "
                        "row) and 1048576 columns (uniform), values and x uniform in [0.5, 1.5), seed 10001",
                        held_out_variants("scatter_atomics", "a thread per nonzero, one global float atomicAdd each",
                                          "gather_csc", "the transpose stored as CSC (built at setup), a thread per "
                                          "column sums its entries in a register, one plain store each", {},
                                          "no_atomics", "the same reads and products, folded in registers")},
                       [] { return make_transpose_spmv_workload(16'777'216, 1u << 20, 1u << 20, 10001); }, "round10"));
  e.push_back(held_out({"embedding_grad", "the backward of an embedding lookup: each lookup's 64-float gradient row "
                        "added into its table row (float adds)",
                        "1048576 lookups into a 65536 x 64 table, rows Zipf (rank r with probability proportional to "
                        "1/(r+1)), the ranks shuffled over the ids; gradients uniform in [0.5, 1.5), seed 10002",
                        held_out_variants("row_atomics", "a warp per lookup, two global float atomicAdds per lane",
                                          "sorted_segments", "the lookups sorted by row at setup, a warp's chunk of "
                                          "them walked in order, each run of one row summed in registers, one "
                                          "atomicAdd per float and run", {W::kPrivatize},
                                          "no_atomics", "the same reads, folded in registers")},
                       [] { return make_embedding_grad_workload(1u << 20, 1u << 16, 10002); }, "round10"));
}

// Held-out round 11: a shared-memory histogram and a global float scatter, each with its hot words
// where real data puts them: the digit counts of an LSD radix-sort pass over nearly sorted keys (a
// warp's lanes mostly on one shared bin; fix: a warp's equal digits merged before the shared add)
// and one push-style PageRank step over a power-law graph (float adds piling on the hub vertices;
// fix: the hubs' sums in shared memory per block). Predicted before anything of theirs is measured.
void add_held_out_round11(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"radix_digit_hist", "the digit counts of one LSD radix-sort pass: 8-bit digits of 32-bit keys "
                        "counted per block in 256 shared bins, then added to a global histogram per block",
                        "16777216 keys: uniform u32 values sorted ascending, 1 in 16 (on average) replaced by a "
                        "uniform key; the digit counted is bits 24-31 (runs of about 65536 equal digits), seed 11101",
                        held_out_variants("shared_atomics", "one shared atomicAdd per key on its digit's bin, one "
                                          "global atomicAdd per bin and block", "warp_aggregated",
                                          "a warp's equal digits merged by __match_any_sync, one shared atomicAdd of "
                                          "their number each, the same flush", {W::kNoConflicts, W::kReplicate},
                                          "no_atomics", "the same reads and digits, summed in registers")},
                       [] { return make_radix_digit_hist_workload(16'777'216, 16, 11101); }, "round11"));
  e.push_back(held_out({"pagerank_push", "one push-style PageRank step: every edge adds its source's rank share into "
                        "its target (float atomicAdd), targets power-law (hub vertices)",
                        "16777216 edges over 1048576 vertices, sources uniform, targets floor(V u^3) (hubs at low "
                        "ids), each source's share its rank (uniform in [0.5, 1.5)) over its out-degree, seed 11102",
                        held_out_variants("edge_atomics", "a thread per edge, one global float atomicAdd each",
                                          "hub_privatized", "the 2048 hub vertices' sums in shared memory per block "
                                          "(8 KiB), one atomicAdd per used hub and block; the rest global",
                                          {W::kPrivatize}, "no_atomics", "the same reads, summed in registers")},
                       [] { return make_pagerank_push_workload(16'777'216, 1u << 20, 11102); }, "round11"));
}

// Held-out round 12: two global atomics whose updates mostly change nothing: the depth pass of a
// software rasterizer (atomicMin per fragment; rectangles pile up at the frame's centre, and a
// fragment behind the stored depth changes nothing; fix: the early depth test, a plain read first,
// which no what-if describes: load_before_cas is the CAS's)
// and a tensor's absolute maximum for FP8 scaling (each thread's maximum, then one atomicMax per
// thread on one word; fix: the block's maximum first). Predicted before anything of theirs is measured.
void add_held_out_round12(std::vector<CaseEntry>& e) {
  e.push_back(held_out({"depth_test", "the depth pass of a software rasterizer: each fragment keeps its pixel's "
                        "nearest depth by a global atomicMin (u32)",
                        "16777216 fragments of rectangles (sides uniform in [8, 40] pixels, centres normal around "
                        "the centre of a 1024 x 1024 frame, sigma 102.4), one depth per rectangle uniform below "
                        "2^30, emitted rectangle by rectangle in row-major order, seed 12101",
                        held_out_variants("atomic_min", "one global atomicMin per fragment", "early_test",
                                          "the pixel's stored depth read first (__ldcg), atomicMin only where the "
                                          "fragment is nearer", {},
                                          "no_atomics", "the same reads, folded in registers")},
                       [] { return make_depth_test_workload(16'777'216, 1024, 12101); }, "round12"));
  e.push_back(held_out({"amax", "the absolute maximum of a tensor (the amax of FP8 scaling): each thread's maximum "
                        "of |x| over its grid-stride share, then one global atomicMax (u32 bits) per thread",
                        "67108864 floats normal with mean 0 and sigma 1, seed 12102",
                        held_out_variants("per_thread", "one global atomicMax per thread on the one word",
                                          "per_block", "the block's maximum first (__reduce_max_sync in the warp, "
                                          "the warps' in shared memory), one atomicMax per block",
                                          {W::kAggregateInWarp, W::kPrivatize}, "no_atomics",
                                          "the same reads and maxima, no atomic")},
                       [] { return make_amax_workload(67'108'864, 12102); }, "round12"));
}

std::vector<CaseEntry> make_entries() {
  std::vector<CaseEntry> e;
  e.push_back({{"degree_count", "graph in-degree count (edge list)",
                fmt::format("{} edges into {} vertices, power law floor(V u^4), hubs at low ids "
                            "(degree-ordered), seed 1201", kGraphEdges, kGraphVertices),
                counting_variants("hub_privatized", "the 8192 hub vertices counted in shared memory per block",
                                  {W::kPrivatize})},
               [] { return make_count_workload(power_law_ids(kGraphEdges, kGraphVertices, 4.0, false, 1201),
                                               kGraphVertices, 8192); }});
  e.push_back({{"csr_row_count", "CSR row lengths of a skewed sparse matrix (COO rows)",
                fmt::format("{} nonzeros in {} rows, power law floor(R u^3), rows scattered, seed 1202",
                            kMatrixNonzeros, kMatrixRows),
                counting_variants("warp_aggregated", "equal rows of a warp merged by __match_any_sync",
                                  {W::kAggregateHotLanes, W::kAggregateInWarp})},
               [] { return make_count_workload(power_law_ids(kMatrixNonzeros, kMatrixRows, 3.0, true, 1202),
                                               kMatrixRows, 0); }});
  e.push_back(hash_case("hash_build_load50_uniform", 0.5, 1.0, "uniform"));
  e.push_back(hash_case("hash_build_load90_uniform", 0.9, 1.0, "uniform"));
  e.push_back(hash_case("hash_build_load50_skewed", 0.5, 4.0, "power-law (u^4)"));
  e.push_back(hash_case("hash_build_load90_skewed", 0.9, 4.0, "power-law (u^4)"));
  for (const auto& [name, clusters] : {std::pair{"particle_binning_uniform", 0}, {"particle_binning_clustered", 6}}) {
    const int c = clusters;
    e.push_back({{name, "particle binning into 96 x 96 cells",
                  fmt::format("{} particles, {}, seed 1203", kParticles,
                              c ? "6 Gaussian clusters of width 0.01" : "uniform over the unit square"),
                  {{"global_atomics", R::kBaseline, "one global atomicAdd per particle", ""},
                   {"block_privatized", R::kFix, "the cells counted in shared memory per block", "global_atomics",
                    {W::kPrivatize}},
                   {"no_atomics", R::kAblation, "the same reads and cell index, no atomic", "global_atomics"}}},
                 [c] { return make_binning_workload(particle_positions(kParticles, c, 0.01, 1203), 96, 96); }});
  }
  for (const auto& [name, single] : {std::pair{"image_single_colour", true}, {"image_random_colour", false}}) {
    const bool one = single;
    e.push_back({{name, "RGBA8 image histogram, 4 x 256 bins in shared memory (seed 001)",
                  fmt::format("3840 x 2160 pixels, {}, seed 1204", one ? "one colour" : "every channel random"),
                  {{"shared_atomics", R::kBaseline, "one shared histogram per block", ""},
                   {"warp_replicated", R::kFix, "one padded histogram per warp", "shared_atomics",
                    {W::kReplicatePerWarp, W::kReplicate}},
                   {"no_atomics", R::kAblation, "the same reads, no atomic", "shared_atomics"}}},
                 [one] { return make_image_workload(image_pixels(kImagePixels, one, 1204)); }});
  }
  e.push_back({{"float_histogram", "weighted float histogram, 512 bins in shared memory",
                fmt::format("{} values, Gaussian around 0.5 of width 0.02, seed 1205", kFloatValues),
                {{"shared_float_atomics", R::kBaseline, "shared atomicAdd(float): a CAS loop on sm_90", ""},
                 {"fixed_point_integer", R::kFix, "12-bit fixed-point weights, native 32-bit adds", "shared_float_atomics",
                  {W::kCasLoopNativeBestCase, W::kCasLoopNativeWorstCase, W::kNativeFetchAndOp}},
                 {"no_atomics", R::kAblation, "the same reads and bin index, no atomic", "shared_float_atomics"}}},
               [] { return make_float_hist_workload(clustered_values(kFloatValues, 0.5, 0.02, 1205), 512); }});
  e.push_back({{"spin_lock_counter", "a (sum, count) counter guarded by a global CAS spin lock",
                fmt::format("{} values uniform in [0, 1000), seed 1206; one lane per warp takes the lock", kLockValues),
                {{"global_spin_lock", R::kBaseline, "acquire, add the warp's sum and count, release", ""},
                 {"lock_free_atomics", R::kFix, "one atomicAdd per field and warp", "global_spin_lock",
                  {W::kLockFree}},
                 {"lock_per_warp", R::kAblation, "each warp its own lock and counter (no contention)",
                  "global_spin_lock"}}},
               [] { return make_lock_workload(uniform_values(kLockValues, 1000, 1206)); }});
  for (const bool one : {true, false}) {
    const std::string where = one ? "_one_address" : "_spread";
    e.push_back(cas_loop_case("cas_product" + where, "a u32 product (mod 2^32; odd factors)", CasLoopKind::kProduct, one, 1208));
    e.push_back(cas_loop_case("cas_float_max" + where, "a float max", CasLoopKind::kFloatMax, one, 1209));
    e.push_back(cas_loop_case("cas_float_add" + where, "a float add written as a CAS loop (integer values)",
                              CasLoopKind::kFloatAdd, one, 1210));
  }
  e.push_back(cas_copies_case("cas_product_spread_copies", "a u32 product (mod 2^32; odd factors)", CasLoopKind::kProduct, 1208));
  e.push_back(cas_copies_case("cas_float_max_spread_copies", "a float max", CasLoopKind::kFloatMax, 1209));
  e.push_back(cas_copies_case("cas_float_add_spread_copies", "a float add written as a CAS loop (integer values)",
                              CasLoopKind::kFloatAdd, 1210));
  e.push_back({{"dsmem_histogram", "a 256-bin histogram kept in a cluster peer's shared memory (DSMEM), clusters of 2",
                fmt::format("{} values uniform over 256 bins, seed 1211", kPeerHistValues),
                {{"dsmem_atomics", R::kBaseline, "one atomicAdd per value into the next cluster block's bins", ""},
                 {"block_local", R::kFix, "one atomicAdd per value into the block's own bins", "dsmem_atomics",
                  {W::kBlockLocalBins}},
                 {"no_atomics", R::kAblation, "the same reads, no atomic", "dsmem_atomics"}}},
               [] { return make_peer_histogram_workload(kPeerHistValues, 256, 1211); }});
  e.push_back({{"upsample_backward", "backward of 2x bilinear upsampling: output gradients scattered to input pixels",
                fmt::format("{} planes of {} x {} output gradients uniform in [0, 1) into {} x {} inputs, seed 1207",
                            kUpsamplePlanes, 2 * kUpsampleInSide, 2 * kUpsampleInSide, kUpsampleInSide,
                            kUpsampleInSide),
                {{"global_atomics", R::kBaseline, "four global float atomicAdds per output pixel", ""},
                 {"tile_privatized", R::kFix, "a 16 x 64 output tile's updates in shared memory, then global",
                  "global_atomics", {W::kPrivatize}},
                 {"no_atomics", R::kAblation, "the same reads, indices and weights, no atomic", "global_atomics"}}},
               [] {
                 const std::size_t in = std::size_t{kUpsamplePlanes} * kUpsampleInSide * kUpsampleInSide;
                 return make_upsample_workload(uniform_floats(4 * in, 1207), kUpsamplePlanes, kUpsampleInSide,
                                               kUpsampleInSide);
               }});
  e.push_back({{"threshold_k1", "threshold sweep: m dependent FMA steps per shared atomicAdd, 32 banks (k = 1)",
                "8192 iterations per thread, 256 threads per block, resident blocks on every SM",
                sweep_variants({0, 1, 2, 3, 4, 6, 8})},
               [] { return make_sweep_workload(8192, 1); }});
  e.push_back({{"threshold_k32", "threshold sweep: m dependent FMA steps per shared atomicAdd, one bank (k = 32)",
                "1024 iterations per thread, 256 threads per block, resident blocks on every SM",
                sweep_variants({0, 16, 32, 40, 48, 56, 64, 80, 96, 128})},
               [] { return make_sweep_workload(1024, 32); }});
  e.push_back({{"threshold_round_trip",
                "round-trip sweep: m dependent FMA steps per returning global atomicAdd whose result the chain "
                "takes up, every lane its own line (the slices far from busy; 2048 requests in flight per SM)",
                "512 iterations per thread, 256 threads per block, resident blocks on every SM, 32 lanes send",
                sweep_variants({0, 64, 128, 256, 384, 512, 768}, "returning global atomic")},
               [] { return make_round_trip_sweep_workload(512, 32); }});
  e.push_back({{"threshold_round_trip_lane1",
                "round-trip sweep: as threshold_round_trip, but one lane per warp sends the atomic and its result "
                "feeds the whole warp's chain (64 requests in flight per SM: the unloaded round trip)",
                "512 iterations per thread, 256 threads per block, resident blocks on every SM, lane 0 sends",
                sweep_variants({0, 8, 16, 32, 48, 64, 96, 128, 192}, "returning global atomic")},
               [] { return make_round_trip_sweep_workload(512, 1); }});
  add_held_out_round2(e);
  add_held_out_round3(e);
  add_held_out_round4(e);
  add_held_out_round5(e);
  add_held_out_round6(e);
  add_held_out_round7(e);
  add_held_out_round8(e);
  add_held_out_round9(e);
  add_held_out_round10(e);
  add_held_out_round11(e);
  add_held_out_round12(e);
  return e;
}

const std::vector<CaseEntry>& entries() {
  static const std::vector<CaseEntry> all = make_entries();
  return all;
}

}  // namespace

const VariantSpec* CaseSpec::find(const std::string& variant) const {
  for (const VariantSpec& v : variants)
    if (v.name == variant) return &v;
  return nullptr;
}

const std::vector<CaseSpec>& cases() {
  static const std::vector<CaseSpec> specs = [] {
    std::vector<CaseSpec> s;
    for (const CaseEntry& e : entries()) s.push_back(e.spec);
    return s;
  }();
  return specs;
}

const CaseSpec* find_case(const std::string& name) {
  for (const CaseSpec& c : cases())
    if (c.name == name) return &c;
  return nullptr;
}

std::unique_ptr<Workload> make_workload(const std::string& case_name) {
  for (const CaseEntry& e : entries())
    if (e.spec.name == case_name) return e.make();
  throw std::invalid_argument("unknown validation case '" + case_name + "'");
}

}  // namespace atomq::validation
