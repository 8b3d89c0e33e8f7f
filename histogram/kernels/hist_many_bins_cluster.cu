// Many bins: the histogram is split over the blocks of a thread-block cluster, rank r owning
// bins [r << aux, (r + 1) << aux) in its shared memory. A sample goes to its owner's shared
// memory through distributed shared memory (a remote shared atomic when the owner is another
// SM), so a cluster holds cluster_size times the bins one block could. With a cluster of one
// block this is a block-private histogram with 16-byte loads.
#include <cooperative_groups.h>

#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

namespace cg = cooperative_groups;

template <typename T>
__global__ void __launch_bounds__(policy::ManyBinsCluster::kThreads) hist_many_bins_cluster_kernel(HistArgs a) {
  extern __shared__ unsigned int slice_counts[];  // 1 << aux words
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned int rank_shift = a.aux;
  const unsigned int slice = 1u << rank_shift;
  const unsigned int bins = a.bins;
  zero_shared(slice_counts, slice);
  cluster.sync();  // every slice is zeroed before any block adds to it

  const unsigned int my_rank = cluster.block_rank();
  auto count = [&](unsigned int v) {
    if (v >= bins) return;
    const unsigned int owner = v >> rank_shift;
    const unsigned int offset = v & (slice - 1u);
    // Own slice: a plain shared atomic (ATOMS); another block's: through the cluster window.
    if (owner == my_rank) atomicAdd(&slice_counts[offset], 1u);
    else atomicAdd(cluster.map_shared_rank(&slice_counts[offset], owner), 1u);
  };
  grid_for_each_sample<T>(a.samples, a.n, count);
  cluster.sync();  // all remote adds have landed before the owner merges

  const unsigned int first_bin = my_rank << rank_shift;
  for (unsigned int i = threadIdx.x; i < slice && first_bin + i < bins; i += blockDim.x) {
    const unsigned int c = slice_counts[i];
    if (c != 0u) atomicAdd(&a.counts[first_bin + i], c);
  }
}

const void* hist_many_bins_cluster_handle(int sample_bytes) {
  return by_sample_bytes(sample_bytes, [](auto t) { return handle(&hist_many_bins_cluster_kernel<decltype(t)>); });
}

}  // namespace atomq::histogram::kernels
