// Histogram of a 4-channel uint8 image with 32 bank-aligned copies of the four channel
// histograms: lane l adds bin v of channel c at word (c * bins + v) * 32 + l, always in bank l.
// A warp's atomic is then one wavefront whatever the colours (the plain image kernel pays a
// bank conflict per step on a random-colour image). 128 KB of shared memory at 256 bins, so one
// block of 1024 threads per SM, launched as thread-block clusters.
//
// At 256 bins the kernel is bound by instruction issue, not by the atomic unit (4 shared atomics
// per pixel, each a single wavefront): the 256-bin form spends two integer instructions per
// channel, a byte extract and a multiply-add into the lane's byte address, with the channel's
// table offset in the atomic's immediate.
//
// At the end each block sums its 32 copies of a counter into one of them, and the cluster adds
// those sums through distributed shared memory, each block a share of the counters: the global
// adds are counters x clusters, not counters x blocks, so fewer of them queue on the same L2
// lines at the kernel's tail.
#include <cooperative_groups.h>

#include "hist_common.cuh"
#include "hist_kernels.cuh"

namespace atomq::histogram::kernels {

namespace cg = cooperative_groups;

namespace {

constexpr int kVectorsInFlight = 4;  // one block of 1024 threads per SM: 64 B in flight each

// Channel c of the pixel: bin byte c, at byte (c * 256 + bin) * 128 + 4 * lane.
template <unsigned int kChannel>
__device__ __forceinline__ void count_channel_256(unsigned int pixel, unsigned int lane_address) {
  const unsigned int bin = __byte_perm(pixel, 0u, 0x4440u + kChannel);
  shared_add_one<kChannel * 256u * 128u>(bin * 128u + lane_address);
}

// Counter b's sum goes to its copy b % 32 (word b * 32 + b % 32: a warp's 32 sums in 32 banks).
__device__ __forceinline__ unsigned int sum_slot(unsigned int b) { return (b << 5) + (b & 31u); }

// Every thread of every block of the cluster calls it after counting.
__device__ __forceinline__ void merge_lane_copies_in_cluster(cg::cluster_group& cluster, unsigned int* lane_counts,
                                                             unsigned int counters, unsigned int* global_counts) {
  __syncthreads();  // this block has counted everything
  for (unsigned int b = threadIdx.x; b < counters; b += blockDim.x) {
    unsigned int sum = 0u;
#pragma unroll 8
    for (unsigned int c = 0; c < 32u; ++c) sum += lane_counts[(b << 5) + ((c + b) & 31u)];
    lane_counts[sum_slot(b)] = sum;  // only this thread reads or writes counter b's words
  }
  cluster.sync();  // every block's sums are in place
  const unsigned int ranks = cluster.num_blocks();
  const unsigned int share = (counters + ranks - 1u) / ranks;
  const unsigned int first = cluster.block_rank() * share;
  const unsigned int last = min(first + share, counters);
  for (unsigned int b = first + threadIdx.x; b < last; b += blockDim.x) {
    unsigned int total = 0u;
    for (unsigned int q = 0; q < ranks; ++q) total += cluster.map_shared_rank(lane_counts, q)[sum_slot(b)];
    if (total != 0u) atomicAdd(&global_counts[b], total);
  }
  cluster.sync();  // no block leaves while another still reads its shared memory
}

}  // namespace

// kAllInRange: 256 bins, so every channel value is a bin and no sample needs a range test.
template <bool kAllInRange>
__global__ void __launch_bounds__(policy::ImageLaneReplicated::kThreads,
                                  policy::ImageLaneReplicated::kMinBlocksPerSm)
    hist_image_lane_replicated_kernel(HistArgs a) {
  extern __shared__ unsigned int lane_counts[];  // 4 x bins x 32
  const unsigned int bins = a.bins;
  const unsigned int lane = threadIdx.x & 31u;
  const unsigned int counters = 4u * bins;
  cg::cluster_group cluster = cg::this_cluster();
  auto zero = [&] {
    zero_shared(lane_counts, counters * 32u);
    __syncthreads();
  };
  const auto* pixels = static_cast<const std::uint32_t*>(a.samples);
  if constexpr (kAllInRange) {
    const unsigned int lane_address = shared_address(lane_counts) + 4u * lane;
    auto count = [&](unsigned int pixel) {
      count_channel_256<0>(pixel, lane_address);
      count_channel_256<1>(pixel, lane_address);
      count_channel_256<2>(pixel, lane_address);
      count_channel_256<3>(pixel, lane_address);
    };
    for_each_sample<kVectorsInFlight>(pixels, a.n, global_thread_index(), global_thread_count(), count, zero);
  } else {
    unsigned int* mine = lane_counts + lane;
    auto count = [&](unsigned int pixel) {
#pragma unroll
      for (unsigned int channel = 0; channel < 4u; ++channel) {
        const unsigned int v = (pixel >> (8u * channel)) & 0xFFu;
        if (v < bins) atomicAdd(mine + ((channel * bins + v) << 5), 1u);
      }
    };
    for_each_sample<kVectorsInFlight>(pixels, a.n, global_thread_index(), global_thread_count(), count, zero);
  }
  merge_lane_copies_in_cluster(cluster, lane_counts, counters, a.counts);
}

const void* hist_image_lane_replicated_handle(unsigned int bins) {
  return bins == 256u ? handle(&hist_image_lane_replicated_kernel<true>)
                      : handle(&hist_image_lane_replicated_kernel<false>);
}

}  // namespace atomq::histogram::kernels
