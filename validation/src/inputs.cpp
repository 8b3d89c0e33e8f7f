#include "inputs.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace atomq::validation {

namespace {

// A bijection of 32-bit words (murmur3's finalizer): distinct inputs give distinct keys.
std::uint32_t mix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

std::uint32_t draw_power_law(std::mt19937_64& rng, std::uint32_t num_ids, double power) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const auto id = static_cast<std::uint32_t>(num_ids * std::pow(u(rng), power));
  return std::min(id, num_ids - 1u);
}

}  // namespace

std::vector<std::uint32_t> power_law_ids(std::size_t n, std::uint32_t num_ids, double power, bool scatter,
                                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> ids(n);
  for (auto& id : ids) {
    id = draw_power_law(rng, num_ids, power);
    if (scatter) id = (id * 0x9E3779B1u) & (num_ids - 1u);  // odd multiplier: a permutation
  }
  return ids;
}

std::vector<std::uint32_t> hash_insert_stream(std::size_t distinct, double power, std::uint64_t seed) {
  std::vector<std::uint32_t> keys;
  keys.reserve(2 * distinct);
  for (std::size_t i = 0; i < distinct; ++i) {
    std::uint32_t k = mix32(static_cast<std::uint32_t>(i + 1));
    keys.push_back(k == 0xFFFFFFFFu ? mix32(0) : k);  // mix32(0) = 0 is no other key
  }
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < distinct; ++i)
    keys.push_back(keys[draw_power_law(rng, static_cast<std::uint32_t>(distinct), power)]);
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

std::vector<Position> particle_positions(std::size_t n, int clusters, double sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<Position> centres(std::max(clusters, 0));
  for (auto& c : centres) c = {0.1f + 0.8f * u(rng), 0.1f + 0.8f * u(rng)};
  std::normal_distribution<float> g(0.0f, static_cast<float>(sigma));
  std::uniform_int_distribution<int> pick(0, std::max(clusters, 1) - 1);
  auto clamp01 = [](float v) { return std::clamp(v, 0.0f, 0.99999f); };
  std::vector<Position> p(n);
  for (auto& q : p) {
    if (clusters <= 0) {
      q = {u(rng), u(rng)};
    } else {
      const Position& c = centres[pick(rng)];
      q = {clamp01(c.x + g(rng)), clamp01(c.y + g(rng))};
    }
  }
  return p;
}

std::vector<std::uint32_t> image_pixels(std::size_t n, bool single_colour, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto colour = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> px(n, colour);
  if (!single_colour)
    for (auto& p : px) p = static_cast<std::uint32_t>(rng());
  return px;
}

std::vector<float> clustered_values(std::size_t n, double mean, double sigma, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(mean, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(std::clamp(g(rng), 0.0, 0.99999));
  return v;
}

std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

std::vector<float> uniform_on_grid(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> out(n);
  for (float& v : out) v = 0.5f + static_cast<float>(rng() >> 41) / 8388608.0f;
  return out;
}

std::vector<std::uint32_t> uniform_values(std::size_t n, std::uint32_t bound, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> u(0, bound - 1);
  std::vector<std::uint32_t> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

ForwardGraph community_graph(std::uint32_t vertices, std::uint32_t community, double p, std::size_t extra,
                             std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::set<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::uint32_t c = 0; c + community <= vertices; c += community)
    for (std::uint32_t a = c; a < c + community; ++a)
      for (std::uint32_t b = a + 1; b < c + community; ++b)
        if (u(rng) < p) edges.insert({a, b});
  std::uniform_int_distribution<std::uint32_t> any(0, vertices - 1);
  while (extra > 0) {
    const std::uint32_t a = any(rng), b = any(rng);
    if (a != b && edges.insert({std::min(a, b), std::max(a, b)}).second) --extra;
  }
  ForwardGraph g;
  g.offsets.assign(vertices + 1, 0u);
  for (const auto& [a, b] : edges) {
    ++g.offsets[a + 1];
    g.edge_u.push_back(a);
    g.edge_v.push_back(b);
  }
  for (std::uint32_t v = 0; v < vertices; ++v) g.offsets[v + 1] += g.offsets[v];
  for (const auto& e : edges) g.neighbours.push_back(e.second);  // the set is sorted by (u, v)
  return g;
}

unsigned long long count_triangles(const ForwardGraph& g) {
  unsigned long long total = 0;
  for (std::size_t e = 0; e < g.edge_u.size(); ++e) {
    std::uint32_t i = g.offsets[g.edge_u[e]], j = g.offsets[g.edge_v[e]];
    const std::uint32_t i_end = g.offsets[g.edge_u[e] + 1], j_end = g.offsets[g.edge_v[e] + 1];
    while (i < i_end && j < j_end) {
      if (g.neighbours[i] == g.neighbours[j]) ++total, ++i, ++j;
      else if (g.neighbours[i] < g.neighbours[j]) ++i;
      else ++j;
    }
  }
  return total;
}

std::vector<std::uint32_t> sorted_segments(std::size_t n, std::uint32_t segments, std::uint64_t seed) {
  // Distinct cuts in [1, n): every segment holds at least one value.
  std::vector<std::uint32_t> cuts = uniform_values(segments - 1, static_cast<std::uint32_t>(n - 1), seed);
  for (std::uint32_t& c : cuts) ++c;
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<std::uint32_t> ids(n);
  std::size_t next = 0;
  for (std::size_t i = 0; i < n; ++i) {
    while (next < cuts.size() && cuts[next] <= i) ++next;
    ids[i] = static_cast<std::uint32_t>(next);
  }
  return ids;
}

std::vector<std::uint32_t> count_ids(const std::vector<std::uint32_t>& ids, std::uint32_t num_ids) {
  std::vector<std::uint32_t> counts(num_ids, 0u);
  for (std::uint32_t id : ids) ++counts[id];
  return counts;
}

std::vector<float> whole_units(std::size_t n, std::uint32_t top, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> units(1, top);
  std::vector<float> w(n);
  for (float& x : w) x = static_cast<float>(units(rng));
  return w;
}

std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

std::vector<std::uint32_t> exact_float_bits(const std::vector<double>& sums, const char* what) {
  std::vector<std::uint32_t> out;
  out.reserve(sums.size());
  for (double v : sums) {
    if (v >= 16777216.0) throw std::logic_error(std::string(what) + ": a sum reached 2^24 units: float adds are not exact");
    out.push_back(float_bits(static_cast<float>(v)));
  }
  return out;
}

}  // namespace atomq::validation
