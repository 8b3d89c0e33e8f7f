// Many bins: the histogram is split into `slices` slices of 1 << aux bins, and a thread-block
// cluster holds `copies` = cluster size / slices whole copies of it, block r owning slice
// r % slices of copy r / slices in its shared memory. A sample goes to its slice in its own
// block's copy through distributed shared memory (a remote shared atomic when the owner is
// another SM), so a copy holds `slices` times the bins one block could.
// At the end the cluster sums its copies through distributed shared memory, each block one part
// of its slice, so the global updates are bins x clusters, not bins x blocks: with 4096 bins
// (one slice) and clusters of 8 that is 8 times fewer atomics on the same L2 lines at the tail.
#include <cooperative_groups.h>

#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

namespace cg = cooperative_groups;

namespace {

// Slices of 1 << shift bins that hold `bins`, rounded up to a power of two (as the host's
// shared::split_ranks).
__device__ __forceinline__ unsigned int slice_count(unsigned int bins, unsigned int shift) {
  const unsigned int needed = (bins + (1u << shift) - 1u) >> shift;
  return needed <= 1u ? 1u : 1u << (32 - __clz(needed - 1u));
}

// Block (copy c, slice s) adds bins [c * part, (c + 1) * part) of slice s over all copies.
__device__ __forceinline__ void flush_copies(cg::cluster_group& cluster, unsigned int* slice_counts,
                                             unsigned int slices, unsigned int shift, unsigned int bins,
                                             unsigned int* global_counts) {
  const unsigned int rank = cluster.block_rank();
  const unsigned int copies = cluster.num_blocks() / slices;
  const unsigned int slice = 1u << shift;
  const unsigned int own_slice = rank % slices;
  const unsigned int part = (slice + copies - 1u) / copies;
  const unsigned int begin = (rank / slices) * part;
  const unsigned int end = min(begin + part, slice);
  const unsigned int first_bin = own_slice << shift;
  for (unsigned int i = begin + threadIdx.x; i < end && first_bin + i < bins; i += blockDim.x) {
    unsigned int sum = 0u;
    for (unsigned int c = 0; c < copies; ++c)
      sum += cluster.map_shared_rank(slice_counts, own_slice + c * slices)[i];
    if (sum != 0u) atomicAdd(&global_counts[first_bin + i], sum);
  }
}

}  // namespace

// kOneSlice: the bins fit one block (one slice), so every sample is a local shared atomic and
// the count needs no owner: the kernel is bound by instruction issue at 4096 bins.
template <typename T, bool kOneSlice>
__global__ void __launch_bounds__(policy::ManyBinsCluster::kThreads) hist_many_bins_cluster_kernel(HistArgs a) {
  extern __shared__ unsigned int slice_counts[];  // 1 << aux words, then spare words
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned int shift = a.aux;
  const unsigned int slice = 1u << shift;
  const unsigned int bins = a.bins;
  const unsigned int slices = slice_count(bins, shift);
  const unsigned int my_rank = cluster.block_rank();
  const unsigned int copy_base = my_rank - my_rank % slices;  // rank of slice 0 of my copy
  auto count = [&](unsigned int v) {
    if constexpr (kOneSlice) {
      shared_add_one_or_spare(slice_counts, v, bins, slice);
    } else {
      if (v >= bins) return;
      const unsigned int owner = copy_base + (v >> shift);
      const unsigned int offset = v & (slice - 1u);
      // Own slice: a plain shared atomic (ATOMS); another block's: through the cluster window.
      if (owner == my_rank) atomicAdd(&slice_counts[offset], 1u);
      else atomicAdd(cluster.map_shared_rank(&slice_counts[offset], owner), 1u);
    }
  };
  // One slice: only this block adds to its counters, so they are zeroed while the first loads
  // are in flight. Several: every slice of the cluster is zeroed before any block adds to it.
  if constexpr (kOneSlice) {
    for_each_sample(static_cast<const T*>(a.samples), a.n, global_thread_index(), global_thread_count(), count,
                    [&] {
                      zero_shared(slice_counts, slice);
                      __syncthreads();
                    });
  } else {
    zero_shared(slice_counts, slice);
    cluster.sync();
    grid_for_each_sample<T>(a.samples, a.n, count);
  }
  cluster.sync();  // all remote adds have landed before the copies are summed
  flush_copies(cluster, slice_counts, slices, shift, bins, a.counts);
  cluster.sync();  // no block leaves while another still reads its shared memory
}

const void* hist_many_bins_cluster_handle(int sample_bytes, bool one_slice) {
  if (one_slice)
    return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_many_bins_cluster_kernel<decltype(t), true>); });
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_many_bins_cluster_kernel<decltype(t), false>); });
}

}  // namespace atomq::histogram::kernels
