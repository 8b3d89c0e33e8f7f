// Many bins, packed: two 16-bit counters per shared word, so 65536 bins fit one block's shared
// memory (128 KB), every sample is a local shared atomic, and nothing crosses SMs while counting.
// The blocks of a thread-block cluster then add their copies through distributed shared memory,
// each rank summing one slice of the bins, so the global updates are bins x clusters instead of
// bins x blocks.
//
// Bin v < W (W = the block's shared words) is the low half of word v, bin v >= W the high half of
// word v - W. Neighbouring bins are then in different words and banks: the hot bins of a skewed
// input (0, 1, 2, ... under Zipf) do not serialize on one word, and the flush adds 32 consecutive
// bins per warp instruction (one 128-byte line) instead of bins 8 words apart.
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
// The add that takes a counter from 0x7FFF to 0x8000 is the only one that sets its bit 15 (the
// counter keeps 0x8000 or more only until that thread lowers it), so one logic op on the old and
// new words finds it. A sample outside the bins adds 0 to counter 0 instead of skipping the
// atomic: a branch around every atomic costs a divergence region per sample (see
// shared_add_one_or_spare). This add returns the old value, so it is an ATOMS.ADD either way and
// an add of 0 loses no merging of lanes.
__device__ __forceinline__ void count_packed(unsigned int* packed, unsigned int words, unsigned int v,
                                             unsigned int bins, unsigned int* global_counts) {
  const bool counted = v < bins;
  const unsigned int bin = counted ? v : 0u;
  const bool high = bin >= words;
  unsigned int* word = &packed[high ? bin - words : bin];
  const unsigned int one = counted ? (high ? 0x10000u : 1u) : 0u;
  const unsigned int spill = one * kSpillAt;
  const unsigned int old = atomicAdd(word, one);
  if ((old + one) & ~old & spill) {
    atomicSub(word, spill);
    atomicAdd(&global_counts[v], kSpillAt);
  }
}

// The same walk as for_each_sample (head, 16-byte vectors, tail), but in rounds that every
// thread of the grid runs the same number of times, so the barrier between them is uniform.
// The next round's kVectorsPerRound loads are in flight while this round counts; the first
// round's are in flight while before_counting() zeroes the block's counters.
template <typename F, typename Prologue>
__device__ __forceinline__ void for_each_sample_in_rounds(const std::uint32_t* samples,
                                                          unsigned long long n, F& count,
                                                          Prologue&& before_counting) {
  const unsigned long long tid = global_thread_index();
  const unsigned long long nthreads = global_thread_count();
  const auto address = reinterpret_cast<std::uintptr_t>(samples);
  unsigned long long head = ((16u - (address & 15u)) & 15u) / 4u;
  if (head > n) head = n;
  const uint4* vectors = reinterpret_cast<const uint4*>(samples + head);
  const unsigned long long vector_count = (n - head) / 4u;
  const unsigned long long tail_start = head + vector_count * 4u;
  const unsigned long long per_round = kVectorsPerRound * nthreads;
  const unsigned long long rounds = (vector_count + per_round - 1u) / per_round;
  unsigned long long i = tid;
  uint4 current[kVectorsPerRound];
#pragma unroll
  for (unsigned int k = 0; k < kVectorsPerRound; ++k) {
    const unsigned long long at = i + k * nthreads;
    if (at < vector_count) current[k] = load_streaming(vectors + at);  // else never read
  }
  before_counting();
  if (tid < head) count(samples[tid]);
  if (tid < n - tail_start) count(samples[tail_start + tid]);
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long next = i + per_round;
    uint4 coming[kVectorsPerRound];
#pragma unroll
    for (unsigned int k = 0; k < kVectorsPerRound; ++k) {
      const unsigned long long at = next + k * nthreads;
      if (at < vector_count) coming[k] = load_streaming(vectors + at);  // else never read
    }
#pragma unroll
    for (unsigned int k = 0; k < kVectorsPerRound; ++k)
      if (i + k * nthreads < vector_count) for_each_in_vector<std::uint32_t>(current[k], count);
    __syncthreads();
#pragma unroll
    for (unsigned int k = 0; k < kVectorsPerRound; ++k) current[k] = coming[k];
    i = next;
  }
}

// Each rank sums one slice of the cluster's packed copies, a word per thread (a warp reads 128
// contiguous bytes of each rank), and adds the non-zero 16-bit sums to the global bins: the low
// halves to bins first..first+slice, the high halves to the same bins + words.
__device__ __forceinline__ void flush_cluster_slice(cg::cluster_group& cluster, unsigned int* packed,
                                                    unsigned int words, unsigned int* global_counts) {
  const unsigned int ranks = cluster.num_blocks();
  const unsigned int slice = words / ranks;
  const unsigned int first = cluster.block_rank() * slice;
  for (unsigned int w = first + threadIdx.x; w < first + slice; w += blockDim.x) {
    unsigned int low = 0u;
    unsigned int high = 0u;
    for (unsigned int q = 0; q < ranks; ++q) {
      const unsigned int word = cluster.map_shared_rank(packed, q)[w];
      low += word & 0xFFFFu;
      high += word >> 16;
    }
    if (low != 0u) atomicAdd(&global_counts[w], low);  // nonzero only for a counted bin
    if (high != 0u) atomicAdd(&global_counts[w + words], high);
  }
}

}  // namespace

// a.aux: shared words per block (a multiple of 4 x cluster size, at least bins / 2; the tail
// words stay zero).
__global__ void __launch_bounds__(Policy::kThreads, Policy::kMinBlocksPerSm)
    hist_many_bins_packed_kernel(HistArgs a) {
  extern __shared__ uint4 packed_vectors[];
  unsigned int* packed = reinterpret_cast<unsigned int*>(packed_vectors);
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned int bins = a.bins;
  const unsigned int words = a.aux;
  auto count = [&](unsigned int v) { count_packed(packed, words, v, bins, a.counts); };
  for_each_sample_in_rounds(static_cast<const std::uint32_t*>(a.samples), a.n, count, [&] {
    zero_shared(packed, words);
    __syncthreads();
  });

  cluster.sync();  // every block of the cluster has counted (and spilled) everything
  flush_cluster_slice(cluster, packed, words, a.counts);
  cluster.sync();  // no block leaves while another still reads its shared memory
}

const void* hist_many_bins_packed_handle() { return handle(&hist_many_bins_packed_kernel); }

}  // namespace atomq::histogram::kernels
