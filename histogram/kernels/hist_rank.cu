// Histogram plus each sample's rank within its bin, the counting pass of a counting sort:
// the atomicAdd's old value is the rank, so the compiler emits ATOMS.ADD (result used), and on
// Hopper the lanes of a warp that hit one word are serialized (POPC.INC, used when the result
// is dropped, merges them instead). Shared: one histogram per block. Lane copies: 32 copies
// laid out so that copy = lane = bank, so a warp's lanes never share a word; a sample's rank is
// then its rank within its lane's copy. The ranks are folded into a checksum that a never-taken
// zero-add keeps alive (a full counting sort would write them out).
#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

template <typename T, bool kLaneCopies>
__global__ void __launch_bounds__(policy::Rank::kThreads) hist_rank_kernel(HistArgs a) {
  extern __shared__ unsigned int rank_counts[];  // bins, or bins x 32 lane copies
  const unsigned int copies = kLaneCopies ? 32u : 1u;
  zero_shared(rank_counts, copies * a.bins);
  __syncthreads();
  const unsigned int lane = threadIdx.x & 31u;
  const T* samples = static_cast<const T*>(a.samples);
  unsigned int checksum = 0u;
  const unsigned long long stride = global_thread_count();
  for (unsigned long long i = global_thread_index(); i < a.n; i += stride) {
    const unsigned int v = samples[i];
    if (v < a.bins) {
      unsigned int* word = kLaneCopies ? &rank_counts[v * 32u + lane] : &rank_counts[v];
      checksum += atomicAdd(word, 1u);
    }
  }
  __syncthreads();
  if constexpr (kLaneCopies) {
    merge_lane_copies_to_global(rank_counts, a.bins, a.counts);
  } else {
    merge_to_global(rank_counts, a.bins, a.counts);
  }
  if (checksum == 0xFFFFFFFFu) atomicAdd(&a.counts[0], 0u);  // adds nothing even if taken
}

const void* hist_rank_handle(int sample_bytes, bool lane_copies) {
  return by_sample_bytes(sample_bytes, [lane_copies](auto t) {
    return lane_copies ? handle(&hist_rank_kernel<decltype(t), true>)
                       : handle(&hist_rank_kernel<decltype(t), false>);
  });
}

}  // namespace atomq::histogram::kernels
