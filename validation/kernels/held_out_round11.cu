// Held-out round 11: the digit counts of an LSD radix-sort pass over nearly sorted keys and one
// push-style PageRank step over a power-law graph.
#include "held_out_round11.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {

constexpr unsigned int kFullMask = 0xFFFFFFFFu;

__device__ __forceinline__ std::uint32_t radix_digit(std::uint32_t key) {
  return (key >> kRadixDigitShift) & (kRadixBins - 1u);
}

__device__ void clear_digit_bins(std::uint32_t* bins) {
  for (std::uint32_t b = threadIdx.x; b < kRadixBins; b += blockDim.x) bins[b] = 0u;
  __syncthreads();
}

// The block's counts into the global histogram, one atomicAdd per bin, as a radix pass's upsweep
// publishes them.
__device__ void flush_digit_bins(const std::uint32_t* bins, std::uint32_t* counts) {
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < kRadixBins; b += blockDim.x) atomicAdd(&counts[b], bins[b]);
}

}  // namespace

__global__ void radix_digit_hist_shared_atomics_kernel(RadixDigitHistArgs a) {
  __shared__ std::uint32_t bins[kRadixBins];
  clear_digit_bins(bins);
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicAdd(&bins[radix_digit(a.keys[i])], 1u);
  flush_digit_bins(bins, a.counts);
}

// The lanes of one digit elect their lowest lane, which adds their number to the shared bin.
__global__ void radix_digit_hist_warp_aggregated_kernel(RadixDigitHistArgs a) {
  __shared__ std::uint32_t bins[kRadixBins];
  clear_digit_bins(bins);
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.n;
    const unsigned int active = __ballot_sync(kFullMask, valid);
    if (!valid) continue;
    const std::uint32_t digit = radix_digit(a.keys[i]);
    const unsigned int peers = __match_any_sync(active, digit);
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1)
      atomicAdd(&bins[digit], static_cast<std::uint32_t>(__popc(peers)));
  }
  flush_digit_bins(bins, a.counts);
}

__global__ void radix_digit_hist_no_atomics_kernel(RadixDigitHistArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    acc += radix_digit(a.keys[i]) * 2654435761u;
  keep_alive(acc, a.sink);
}

__global__ void pagerank_push_edge_atomics_kernel(PagerankPushArgs a) {
  for (unsigned long long e = global_thread(); e < a.edges; e += global_threads())
    atomicAdd(&a.next[a.dst[e]], a.contrib[a.src[e]]);
}

// The hubs' sums (8 KiB) per block in shared memory, added to global memory once; the long tail of
// targets stays global.
__global__ void pagerank_push_hub_privatized_kernel(PagerankPushArgs a) {
  __shared__ float hub[kPagerankHubs];
  for (std::uint32_t h = threadIdx.x; h < kPagerankHubs; h += blockDim.x) hub[h] = 0.0f;
  __syncthreads();
  for (unsigned long long e = global_thread(); e < a.edges; e += global_threads()) {
    const std::uint32_t target = a.dst[e];
    const float share = a.contrib[a.src[e]];
    if (target < kPagerankHubs) atomicAdd(&hub[target], share);
    else atomicAdd(&a.next[target], share);
  }
  __syncthreads();
  for (std::uint32_t h = threadIdx.x; h < kPagerankHubs; h += blockDim.x)
    if (hub[h] != 0.0f) atomicAdd(&a.next[h], hub[h]);
}

__global__ void pagerank_push_no_atomics_kernel(PagerankPushArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long e = global_thread(); e < a.edges; e += global_threads())
    acc += a.dst[e] * 2654435761u + __float_as_uint(a.contrib[a.src[e]]);
  keep_alive(acc, a.sink);
}

const void* radix_digit_hist_shared_atomics_handle() { return handle(&radix_digit_hist_shared_atomics_kernel); }
const void* radix_digit_hist_warp_aggregated_handle() { return handle(&radix_digit_hist_warp_aggregated_kernel); }
const void* radix_digit_hist_no_atomics_handle() { return handle(&radix_digit_hist_no_atomics_kernel); }
const void* pagerank_push_edge_atomics_handle() { return handle(&pagerank_push_edge_atomics_kernel); }
const void* pagerank_push_hub_privatized_handle() { return handle(&pagerank_push_hub_privatized_kernel); }
const void* pagerank_push_no_atomics_handle() { return handle(&pagerank_push_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
