// Counting (held-out round 2): triangles into one global counter, and a word count in a
// per-block shared hash table.
#include "held_out_kernels.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

// Common forward neighbours of u and v (both lists sorted): each is one triangle u < v < w.
template <typename OnTriangle>
__device__ void merge_neighbours(const TriangleArgs& a, std::uint32_t u, std::uint32_t v, OnTriangle on_triangle) {
  std::uint32_t i = a.offsets[u], i_end = a.offsets[u + 1], j = a.offsets[v], j_end = a.offsets[v + 1];
  while (i < i_end && j < j_end) {
    const std::uint32_t x = a.neighbours[i], y = a.neighbours[j];
    if (x == y) {
      on_triangle();
      ++i;
      ++j;
    } else if (x < y) {
      ++i;
    } else {
      ++j;
    }
  }
}

// Rounds of a grid-stride loop that keep every lane of a warp in step.
__device__ __forceinline__ unsigned long long rounds(unsigned long long n) {
  return (n + global_threads() - 1) / global_threads();
}

__device__ __forceinline__ std::uint32_t word_slot(std::uint32_t word) { return (word * 2654435761u) >> 21; }

// The block's table merged into the global counts, then cleared for nothing (one pass per block).
__device__ void merge_table(const std::uint32_t* keys, const std::uint32_t* counts, const WordCountArgs& a) {
  __syncthreads();
  for (std::uint32_t s = threadIdx.x; s < kWordSlots; s += blockDim.x)
    if (keys[s] != kNoWord) atomicAdd(&a.counts[keys[s]], counts[s]);
}

__device__ void clear_table(std::uint32_t* keys, std::uint32_t* counts) {
  for (std::uint32_t s = threadIdx.x; s < kWordSlots; s += blockDim.x) {
    keys[s] = kNoWord;
    counts[s] = 0u;
  }
  __syncthreads();
}

// Claims the word's slot (or finds it) by linear probing and adds `count` there.
__device__ void insert_word(std::uint32_t* keys, std::uint32_t* counts, std::uint32_t word, std::uint32_t count) {
  for (std::uint32_t s = word_slot(word);; s = (s + 1) & (kWordSlots - 1)) {
    const std::uint32_t prev = atomicCAS(&keys[s], kNoWord, word);
    if (prev == kNoWord || prev == word) {
      atomicAdd(&counts[s], count);
      return;
    }
  }
}

}  // namespace

__global__ void triangle_global_kernel(TriangleArgs a) {
  for (unsigned long long e = global_thread(); e < a.edges; e += global_threads())
    merge_neighbours(a, a.edge_u[e], a.edge_v[e], [&] { atomicAdd(a.triangles, 1ull); });
}

__global__ void triangle_warp_sum_kernel(TriangleArgs a) {
  const unsigned long long r_end = rounds(a.edges);
  std::uint32_t mine = 0;
  for (unsigned long long r = 0; r < r_end; ++r) {
    const unsigned long long e = r * global_threads() + global_thread();
    if (e < a.edges) merge_neighbours(a, a.edge_u[e], a.edge_v[e], [&] { ++mine; });
  }
  const std::uint32_t warp_sum = __reduce_add_sync(kFullMask, mine);
  if ((threadIdx.x & 31u) == 0 && warp_sum != 0u) atomicAdd(a.triangles, static_cast<unsigned long long>(warp_sum));
}

__global__ void triangle_no_atomics_kernel(TriangleArgs a) {
  std::uint32_t mine = 0;
  for (unsigned long long e = global_thread(); e < a.edges; e += global_threads())
    merge_neighbours(a, a.edge_u[e], a.edge_v[e], [&] { ++mine; });
  keep_alive(mine, a.sink);
}

__global__ void word_count_shared_cas_kernel(WordCountArgs a) {
  __shared__ std::uint32_t keys[kWordSlots], counts[kWordSlots];
  clear_table(keys, counts);
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) insert_word(keys, counts, a.words[i], 1u);
  merge_table(keys, counts, a);
}

__global__ void word_count_warp_merged_kernel(WordCountArgs a) {
  __shared__ std::uint32_t keys[kWordSlots], counts[kWordSlots];
  clear_table(keys, counts);
  const unsigned long long r_end = rounds(a.n);
  for (unsigned long long r = 0; r < r_end; ++r) {
    const unsigned long long i = r * global_threads() + global_thread();
    const bool valid = i < a.n;
    const unsigned active = __ballot_sync(kFullMask, valid);
    if (!valid) continue;
    const std::uint32_t word = a.words[i];
    const unsigned peers = __match_any_sync(active, word);
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1)
      insert_word(keys, counts, word, static_cast<std::uint32_t>(__popc(peers)));
  }
  merge_table(keys, counts, a);
}

__global__ void word_count_no_atomics_kernel(WordCountArgs a) {
  std::uint32_t acc = 0;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc += word_slot(a.words[i]);
  keep_alive(acc, a.sink);
}

const void* triangle_global_handle() { return handle(&triangle_global_kernel); }
const void* triangle_warp_sum_handle() { return handle(&triangle_warp_sum_kernel); }
const void* triangle_no_atomics_handle() { return handle(&triangle_no_atomics_kernel); }
const void* word_count_shared_cas_handle() { return handle(&word_count_shared_cas_kernel); }
const void* word_count_warp_merged_handle() { return handle(&word_count_warp_merged_kernel); }
const void* word_count_no_atomics_handle() { return handle(&word_count_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
