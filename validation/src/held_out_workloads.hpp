// Factories of the held-out round 2 workloads (held_out_queue_workloads.cpp,
// held_out_other_workloads.cpp): inputs generated from their seeds, CPU references computed.
#pragma once

#include <cstdint>
#include <memory>

#include "inputs.hpp"
#include "workload.hpp"

namespace atomq::validation {

// Edge targets uniform over `vertices`, half of them visited; variants global_tail,
// warp_aggregated, no_atomics.
std::unique_ptr<Workload> make_frontier_workload(std::size_t edges, std::uint32_t vertices, std::uint64_t seed);
// Tasks of kernels::kTaskWords words; variants ticket_per_thread, ticket_per_warp, static_tasks.
std::unique_ptr<Workload> make_ticket_workload(std::uint32_t tasks, std::uint64_t seed);
// n uniform words (a multiple of kernels::kCompactTile), a quarter kept; variants shared_tail,
// warp_tail, no_atomics.
std::unique_ptr<Workload> make_compact_workload(std::size_t n, std::uint64_t seed);
// Communities of `community` vertices with edge probability p inside, plus `extra` random edges;
// variants global_counter, warp_sum, no_atomics.
std::unique_ptr<Workload> make_triangle_workload(std::uint32_t vertices, std::uint32_t community, double p,
                                                 std::size_t extra, std::uint64_t seed);
// n tokens, word ids floor(vocabulary u^power); variants shared_cas, warp_merged, no_atomics.
std::unique_ptr<Workload> make_word_count_workload(std::size_t n, std::uint32_t vocabulary, double power,
                                                   std::uint64_t seed);
// n values < 1000 in `groups` uniform groups; variants bucket_locks, lock_free, unlocked.
std::unique_ptr<Workload> make_group_stats_workload(std::size_t n, std::uint32_t groups, std::uint64_t seed);
// n floats in [0, 1) over `segments` sorted segments of random length; variants cas_loop,
// native_max, no_atomics.
std::unique_ptr<Workload> make_segment_max_workload(std::size_t n, std::uint32_t segments, std::uint64_t seed);
// n floats in [0, 1), buckets uniform; variants cas_loop, load_then_cas, no_atomics.
std::unique_ptr<Workload> make_argmax_workload(std::size_t n, std::uint32_t buckets, std::uint64_t seed);

// Round 3 (held_out_round3_workloads.cpp). n keys of buckets x kernels::kChainSlots ids (power
// law, scattered), bucket = key % buckets; variants bucket_locks, lock_free, unlocked.
std::unique_ptr<Workload> make_chain_lock_workload(std::size_t n, std::uint32_t buckets, double power,
                                                   std::uint64_t seed);
// n points of kernels::kKmeansDims coordinates in {0, 1, 2, 3}, labels floor(centroids u^power);
// variants global_atomics, block_private, no_atomics.
std::unique_ptr<Workload> make_kmeans_workload(std::size_t n, std::uint32_t centroids, double power,
                                               std::uint64_t seed);

// Round 4 (held_out_round4_workloads.cpp). n points of a kernels::kVoxelSide^3 grid, each with
// probability 1/2 in the 3 x 3 x 3 voxels around one of `clusters` centres, else uniform; variants
// global_atomics, block_private, no_atomics.
std::unique_ptr<Workload> make_voxel_workload(std::size_t n, std::uint32_t clusters, std::uint64_t seed);
// A text of n letters floor(kernels::kBigramLetters u^power), its n - 1 adjacent pairs counted;
// variants global_atomics, block_private, no_atomics.
std::unique_ptr<Workload> make_bigram_workload(std::size_t n, double power, std::uint64_t seed);

// Round 5 (held_out_round5_workloads.cpp). n particles, each with probability peak_share in the
// peak's bins of kernels::kDepthBins, else uniform before it, depositing 1..8 whole units; variants
// global_atomics, block_private, no_atomics.
std::unique_ptr<Workload> make_energy_deposit_workload(std::size_t n, double peak_share, std::uint64_t seed);
// rows x kernels::kRowLength uniform scores in [0, 1), each row's max; variants cas_loop, warp_first,
// no_atomics.
std::unique_ptr<Workload> make_row_max_workload(std::size_t rows, std::uint64_t seed);

// Round 6 (held_out_round6_workloads.cpp). `edges` destinations floor(nodes u^power) (hubs at the
// lowest ids) with weights of 1..4 units; variants global_atomics, hub_privatized, no_atomics.
std::unique_ptr<Workload> make_edge_aggregate_workload(std::size_t edges, std::uint32_t nodes, double power,
                                                       std::uint64_t seed);
// A label image of `pixels` in rows of `width`, labels in runs of 8..64 pixels, each run's label
// uniform below `labels`; variants global_atomics, warp_merged, no_atomics.
std::unique_ptr<Workload> make_label_area_workload(std::size_t pixels, std::uint32_t width, std::uint32_t labels,
                                                   std::uint64_t seed);
// n losses of 0 or 1 unit summed into one float; variants global_atomics, block_reduced, no_atomics.
std::unique_ptr<Workload> make_loss_sum_workload(std::size_t n, std::uint64_t seed);
// Round 7 (held_out_round7_workloads.cpp). A COO matrix of `nonzeros` sorted by row over up to
// `rows` rows of random length (equal cut points merge), columns uniform, values 1..4 and x 1..2 whole units; variants
// global_atomics, warp_segmented, no_atomics.
std::unique_ptr<Workload> make_coo_spmv_workload(std::size_t nonzeros, std::uint32_t rows, std::uint64_t seed);
// n uniform u32 keys scattered into kernels::kScatterBuckets buckets; variants global_atomics,
// tile_ranked, no_atomics.
std::unique_ptr<Workload> make_bucket_scatter_workload(std::size_t n, std::uint64_t seed);
// n ids floor(vertices u^power) (hubs at the lowest ids) setting bits of a visited bitmap;
// variants global_atomics, warp_merged, no_atomics.
std::unique_ptr<Workload> make_visited_bitmap_workload(std::size_t n, std::uint32_t vertices, double power,
                                                       std::uint64_t seed);
// Round 8 (held_out_round8_workloads.cpp). 15-bit pixel histograms (kernels::kPixelBins bins): a
// smooth image of `pixels` in rows of `width` ((7x + 131y) / 16 plus a random 0 or 1), and uniform
// noise; variants global_atomics, warp_merged, block_private, no_atomics.
std::unique_ptr<Workload> make_smooth_pixel_hist_workload(std::size_t pixels, std::uint32_t width, std::uint64_t seed);
std::unique_ptr<Workload> make_noisy_pixel_hist_workload(std::size_t pixels, std::uint64_t seed);
// Round 9 (held_out_round9_workloads.cpp). n sorted keys from 0, each next key one higher with
// probability 1 / mean_run, counted per key; variants global_atomics, warp_merged, no_atomics.
std::unique_ptr<Workload> make_sorted_key_count_workload(std::size_t n, std::uint32_t mean_run, std::uint64_t seed);
// `particles` sorted cells drawn as those keys, charges uniform in [0.5, 1.5) summed per cell (float
// adds); variants global_atomics, warp_merged, no_atomics.
std::unique_ptr<Workload> make_sorted_particle_deposit_workload(std::size_t particles, std::uint32_t mean_run,
                                                                std::uint64_t seed);
// Round 10 (held_out_round10_workloads.cpp). A CSR matrix of `nonzeros` over `rows` x `cols`, each
// nonzero's row uniform (rows sorted), columns uniform, values and x uniform in [0.5, 1.5); y = A^T x
// (float adds); variants scatter_atomics, gather_csc, no_atomics.
std::unique_ptr<Workload> make_transpose_spmv_workload(std::size_t nonzeros, std::uint32_t rows, std::uint32_t cols,
                                                       std::uint64_t seed);
// `lookups` rows of a table of `rows` x kernels::kEmbeddingDim floats, Zipf (rank r with probability
// proportional to 1 / (r + 1)) with the ranks shuffled over the ids, gradients uniform in [0.5, 1.5)
// added per row (float adds); variants row_atomics, sorted_segments, no_atomics.
std::unique_ptr<Workload> make_embedding_grad_workload(std::size_t lookups, std::uint32_t rows, std::uint64_t seed);
// Round 11 (held_out_round11_workloads.cpp). n uniform u32 keys sorted ascending, one in
// `unsorted_one_in` then replaced by a uniform key, their digit at kernels::kRadixDigitShift counted
// into kernels::kRadixBins bins; variants shared_atomics, warp_aggregated, no_atomics.
std::unique_ptr<Workload> make_radix_digit_hist_workload(std::size_t n, std::uint32_t unsorted_one_in,
                                                         std::uint64_t seed);
// `edges` edges over `vertices`, sources uniform, targets floor(vertices u^3) (hubs at the lowest ids),
// each source's rank (uniform in [0.5, 1.5)) over its out-degree added into its targets (float adds);
// variants edge_atomics, hub_privatized, no_atomics.
std::unique_ptr<Workload> make_pagerank_push_workload(std::size_t edges, std::uint32_t vertices, std::uint64_t seed);

// Round 12 (held_out_round12_workloads.cpp). `fragments` of overlapping rectangles in a frame
// `width` pixels square, for a depth pass (atomicMin per fragment); n normal floats for an amax.
std::unique_ptr<Workload> make_depth_test_workload(std::size_t fragments, std::uint32_t width, std::uint64_t seed);
std::unique_ptr<Workload> make_amax_workload(std::size_t n, std::uint64_t seed);

}  // namespace atomq::validation
