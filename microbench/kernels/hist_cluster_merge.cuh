// The last step of the replicated histogram kernels: the blocks of a thread-block cluster add
// their histograms through distributed shared memory, and each bin reaches the global counters
// once per cluster instead of once per block. A 256-bin histogram lies in eight 128-byte lines,
// so a grid of ~500 blocks each adding every bin piles ~130k atomics onto a few L2 slices at the
// very end of the kernel; a cluster of 16 cuts that 16-fold.
#pragma once

#include <cooperative_groups.h>

#include "hist_common.cuh"

namespace atomq::microbench::kernels {

// Every thread of every block of the cluster calls this after its block's counts are final in
// block_sums (bins words of shared memory, one per bin). Rank r adds slice r of the bins.
__device__ __forceinline__ void cluster_merge_to_global(const unsigned int* block_sums,
                                                        unsigned int bins,
                                                        unsigned int* global_counts) {
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();  // every block's sums are final and visible to the cluster
  wait_for_zeroed_counts();
  const unsigned int ranks = cluster.num_blocks();
  const unsigned int slice = (bins + ranks - 1u) / ranks;
  const unsigned int first = cluster.block_rank() * slice;
  const unsigned int last = min(bins, first + slice);
  for (unsigned int b = first + threadIdx.x; b < last; b += blockDim.x) {
    unsigned int sum = 0u;
    for (unsigned int q = 0; q < ranks; ++q) sum += cluster.map_shared_rank(block_sums, q)[b];
    if (sum != 0u) atomicAdd(&global_counts[b], sum);
  }
  cluster.sync();  // no block leaves while another still reads its shared memory
}

}  // namespace atomq::microbench::kernels
