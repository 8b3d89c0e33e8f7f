// Many bins, packed: two 16-bit counters per shared word, so 65536 bins fit one block's shared
// memory (128 KB), every sample is a local shared atomic, and nothing crosses SMs while counting.
// The blocks of a thread-block cluster then add their copies through distributed shared memory,
// each rank summing one slice of the bins, so the global updates are bins x clusters instead of
// bins x blocks.
//
// No counter wraps: a 16-bit counter is never allowed to keep 0x8000. The thread whose add
// takes it from 0x7FFF to 0x8000 subtracts 0x8000 again and adds 0x8000 to the global bin.
// Samples are counted in rounds separated by __syncthreads; a block adds at most
// kMaxAddsPerRound per thread in a round, so between two barriers a counter moves by less than
// 0x8000 and can neither reach 0x10000 (a carry into its neighbour) nor be lowered twice.
#include <cooperative_groups.h>

#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

namespace cg = cooperative_groups;

namespace {

using Policy = policy::ManyBinsPacked;
constexpr unsigned int kSpillAt = 0x8000u;
constexpr unsigned int kThreads = Policy::kThreads;
constexpr unsigned int kVectorsPerRound = Policy::kSamplesPerRound / 4u;  // 16-byte vectors
// 4 uint32 samples per vector, plus one head and one tail sample in the first round.
constexpr unsigned int kMaxAddsPerRound = kVectorsPerRound * 4u + 2u;
static_assert(kThreads * kMaxAddsPerRound < kSpillAt, "a counter could pass 0xFFFF in one round");

// Adds one sample to its 16-bit counter; a counter that reaches kSpillAt moves it to the global bin.
__device__ __forceinline__ void count_packed(unsigned int* packed, unsigned int v, unsigned int bins,
                                             unsigned int* global_counts) {
  if (v >= bins) return;
  const unsigned int shift = (v & 1u) << 4;
  unsigned int* word = &packed[v >> 1];
  const unsigned int old = atomicAdd(word, 1u << shift);
  if (((old >> shift) & 0xFFFFu) == kSpillAt - 1u) {
    atomicSub(word, kSpillAt << shift);
    atomicAdd(&global_counts[v], kSpillAt);
  }
}

// The same walk as for_each_sample (head, 16-byte vectors, tail), but in rounds that every
// thread of the grid runs the same number of times, so the barrier between them is uniform.
template <typename F>
__device__ __forceinline__ void for_each_sample_in_rounds(const std::uint32_t* samples,
                                                          unsigned long long n, F& count) {
  const unsigned long long tid = global_thread_index();
  const unsigned long long nthreads = global_thread_count();
  const auto address = reinterpret_cast<std::uintptr_t>(samples);
  unsigned long long head = ((16u - (address & 15u)) & 15u) / 4u;
  if (head > n) head = n;
  const uint4* vectors = reinterpret_cast<const uint4*>(samples + head);
  const unsigned long long vector_count = (n - head) / 4u;
  const unsigned long long tail_start = head + vector_count * 4u;
  if (tid < head) count(samples[tid]);
  if (tid < n - tail_start) count(samples[tail_start + tid]);

  const unsigned long long per_round = kVectorsPerRound * nthreads;
  const unsigned long long rounds = (vector_count + per_round - 1u) / per_round;
  unsigned long long i = tid;
  uint4 a0 = i < vector_count ? load_streaming(vectors + i) : uint4{};
  uint4 a1 = i + nthreads < vector_count ? load_streaming(vectors + i + nthreads) : uint4{};
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long next = i + per_round;
    // The next round's loads are in flight while this round counts.
    const uint4 n0 = next < vector_count ? load_streaming(vectors + next) : uint4{};
    const uint4 n1 = next + nthreads < vector_count ? load_streaming(vectors + next + nthreads) : uint4{};
    if (i < vector_count) for_each_in_vector<std::uint32_t>(a0, count);
    if (i + nthreads < vector_count) for_each_in_vector<std::uint32_t>(a1, count);
    __syncthreads();
    a0 = n0;
    a1 = n1;
    i = next;
  }
}

// Each rank sums one slice of the cluster's packed copies (whole 16-byte vectors) and adds the
// non-zero 16-bit sums to the global bins.
__device__ __forceinline__ void flush_cluster_slice(cg::cluster_group& cluster, uint4* packed_vectors,
                                                    unsigned int words, unsigned int* global_counts) {
  const unsigned int ranks = cluster.num_blocks();
  const unsigned int slice_vectors = words / 4u / ranks;
  const unsigned int first = cluster.block_rank() * slice_vectors;
  for (unsigned int j = threadIdx.x; j < slice_vectors; j += blockDim.x) {
    unsigned int low[4] = {0u, 0u, 0u, 0u};
    unsigned int high[4] = {0u, 0u, 0u, 0u};
    for (unsigned int q = 0; q < ranks; ++q) {
      const uint4 w = cluster.map_shared_rank(packed_vectors, q)[first + j];
      const unsigned int ws[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        low[k] += ws[k] & 0xFFFFu;
        high[k] += ws[k] >> 16;
      }
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned int bin = 2u * (4u * (first + j) + k);
      if (low[k] != 0u) atomicAdd(&global_counts[bin], low[k]);  // nonzero only for bin < bins
      if (high[k] != 0u) atomicAdd(&global_counts[bin + 1u], high[k]);
    }
  }
}

}  // namespace

// a.aux: shared words per block (a multiple of 4 x cluster size; the tail words stay zero).
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm)
    hist_many_bins_packed_kernel(HistArgs a) {
  extern __shared__ uint4 packed_vectors[];
  unsigned int* packed = reinterpret_cast<unsigned int*>(packed_vectors);
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned int bins = a.bins;
  const unsigned int words = a.aux;
  zero_shared(packed, words);
  __syncthreads();

  auto count = [&](unsigned int v) { count_packed(packed, v, bins, a.counts); };
  for_each_sample_in_rounds(static_cast<const std::uint32_t*>(a.samples), a.n, count);

  cluster.sync();  // every block of the cluster has counted (and spilled) everything
  flush_cluster_slice(cluster, packed_vectors, words, a.counts);
  cluster.sync();  // no block leaves while another still reads its shared memory
}

const void* hist_many_bins_packed_handle() { return handle(&hist_many_bins_packed_kernel); }

}  // namespace atomq::histogram::kernels
