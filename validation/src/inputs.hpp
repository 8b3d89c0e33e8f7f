// Reproducible inputs of the validation workloads (fixed seeds) and their CPU references.
#pragma once

#include <cstdint>
#include <vector>

namespace atomq::validation {

// ids in [0, num_ids): floor(num_ids * u^power) (a power law: id 0 the most frequent); with
// `scatter` the ids are permuted (num_ids a power of two) so the hot ones are spread.
std::vector<std::uint32_t> power_law_ids(std::size_t n, std::uint32_t num_ids, double power, bool scatter,
                                         std::uint64_t seed);
// `distinct` distinct keys (never 0xFFFFFFFF), each inserted once, plus as many extra inserts
// drawn uniformly (power 1) or by the power law above over the distinct keys; shuffled.
std::vector<std::uint32_t> hash_insert_stream(std::size_t distinct, double power, std::uint64_t seed);

struct Position {
  float x, y;
};
// Uniform over the unit square, or in `clusters` Gaussian blobs of width sigma (clamped inside).
std::vector<Position> particle_positions(std::size_t n, int clusters, double sigma, std::uint64_t seed);

// RGBA pixels: every pixel one colour, or every channel uniform at random.
std::vector<std::uint32_t> image_pixels(std::size_t n, bool single_colour, std::uint64_t seed);

// Values in [0, 1): Gaussian around `mean` with width sigma, clamped.
std::vector<float> clustered_values(std::size_t n, double mean, double sigma, std::uint64_t seed);

// Uniform floats in [0, 1).
std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed);
// Uniform in [0.5, 1.5) on a 2^-23 grid: every value an exact float (a float distribution may
// round up to its upper bound).
std::vector<float> uniform_on_grid(std::size_t n, std::uint64_t seed);
// Whole units 1..top as floats (sums of them below 2^24 are exact in any order).
std::vector<float> whole_units(std::size_t n, std::uint32_t top, std::uint64_t seed);

// A float's bit pattern (the references compare outputs word by word).
std::uint32_t float_bits(float f);
// Sums of whole units, computed in double, as the floats any order of float adds gives; throws
// std::logic_error naming `what` where a sum reaches 2^24 (float adds would round).
std::vector<std::uint32_t> exact_float_bits(const std::vector<double>& sums, const char* what);
// Uniform integers in [0, bound).
std::vector<std::uint32_t> uniform_values(std::size_t n, std::uint32_t bound, std::uint64_t seed);

// An undirected graph as oriented edges u < v and each vertex's forward neighbours (sorted): CSR
// offsets (vertices + 1) and neighbours; communities of `community` vertices with edge probability
// p inside, plus `extra` distinct random edges.
struct ForwardGraph {
  std::vector<std::uint32_t> offsets, neighbours, edge_u, edge_v;
};
ForwardGraph community_graph(std::uint32_t vertices, std::uint32_t community, double p, std::size_t extra,
                             std::uint64_t seed);
// Triangles u < v < w: per edge, the common forward neighbours of u and v.
unsigned long long count_triangles(const ForwardGraph& g);
// Segment ids of n values: runs of random length between sorted uniform cut points (distinct, so
// no segment is empty; a repeated cut leaves fewer than `segments`), ids from 0 without gaps.
std::vector<std::uint32_t> sorted_segments(std::size_t n, std::uint32_t segments, std::uint64_t seed);

// How often each id occurs.
std::vector<std::uint32_t> count_ids(const std::vector<std::uint32_t>& ids, std::uint32_t num_ids);

}  // namespace atomq::validation
