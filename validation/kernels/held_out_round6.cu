// Held-out round 6: a graph layer's float message aggregation with hub nodes, region areas of a
// label image, and a loss reduced into one float.
#include "held_out_round6.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

__global__ void edge_aggregate_global_kernel(EdgeAggregateArgs a) {
  for (unsigned long long e = global_thread(); e < a.edges; e += global_threads())
    atomicAdd(&a.node_sum[a.dst[e]], a.weight[e]);
}

// The hubs' sums (16 KiB) per block in shared memory, added to global memory once; the long tail
// of nodes stays global.
__global__ void edge_aggregate_hub_private_kernel(EdgeAggregateArgs a) {
  __shared__ float hub[kAggregateHubs];
  for (std::uint32_t h = threadIdx.x; h < kAggregateHubs; h += blockDim.x) hub[h] = 0.0f;
  __syncthreads();
  for (unsigned long long e = global_thread(); e < a.edges; e += global_threads()) {
    const std::uint32_t node = a.dst[e];
    if (node < kAggregateHubs) atomicAdd(&hub[node], a.weight[e]);
    else atomicAdd(&a.node_sum[node], a.weight[e]);
  }
  __syncthreads();
  for (std::uint32_t h = threadIdx.x; h < kAggregateHubs; h += blockDim.x)
    if (hub[h] != 0.0f) atomicAdd(&a.node_sum[h], hub[h]);
}

__global__ void edge_aggregate_no_atomics_kernel(EdgeAggregateArgs a) {
  float acc = 0.0f;
  for (unsigned long long e = global_thread(); e < a.edges; e += global_threads()) acc += a.weight[e] * a.dst[e];
  keep_alive(static_cast<std::uint32_t>(acc), a.sink);
}

__global__ void label_area_global_kernel(LabelAreaArgs a) {
  for (unsigned long long i = global_thread(); i < a.pixels; i += global_threads()) atomicAdd(&a.area[a.labels[i]], 1u);
}

// Every lane of the warp takes part in each round (the active mask covers the tail), the lanes of
// one label elect their lowest lane, which adds their number.
__global__ void label_area_warp_merged_kernel(LabelAreaArgs a) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.pixels + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.pixels;
    const unsigned int active = __ballot_sync(0xFFFFFFFFu, valid);
    if (!valid) continue;
    const std::uint32_t label = a.labels[i];
    const unsigned int peers = __match_any_sync(active, label);
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1) atomicAdd(&a.area[label], static_cast<std::uint32_t>(__popc(peers)));
  }
}

__global__ void label_area_no_atomics_kernel(LabelAreaArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.pixels; i += global_threads()) acc += a.labels[i] * 2654435761u;
  keep_alive(acc, a.sink);
}

__global__ void loss_sum_global_kernel(LossSumArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) atomicAdd(a.total, a.loss[i]);
}

// Each thread sums its samples, the warp by shuffles, the block's warps through shared memory;
// thread 0 adds the block's sum.
__global__ void loss_sum_block_reduced_kernel(LossSumArgs a) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) v += a.loss[i];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
  const unsigned int warp = threadIdx.x / 32u, warps = (blockDim.x + 31u) / 32u;
  if ((threadIdx.x & 31u) == 0u) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0u) {
    v = threadIdx.x < warps ? warp_sums[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    if (threadIdx.x == 0u) atomicAdd(a.total, v);
  }
}

__global__ void loss_sum_no_atomics_kernel(LossSumArgs a) {
  float acc = 0.0f;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc += a.loss[i];
  keep_alive(static_cast<std::uint32_t>(acc), a.sink);
}

const void* edge_aggregate_global_handle() { return handle(&edge_aggregate_global_kernel); }
const void* edge_aggregate_hub_private_handle() { return handle(&edge_aggregate_hub_private_kernel); }
const void* edge_aggregate_no_atomics_handle() { return handle(&edge_aggregate_no_atomics_kernel); }
const void* label_area_global_handle() { return handle(&label_area_global_kernel); }
const void* label_area_warp_merged_handle() { return handle(&label_area_warp_merged_kernel); }
const void* label_area_no_atomics_handle() { return handle(&label_area_no_atomics_kernel); }
const void* loss_sum_global_handle() { return handle(&loss_sum_global_kernel); }
const void* loss_sum_block_reduced_handle() { return handle(&loss_sum_block_reduced_kernel); }
const void* loss_sum_no_atomics_handle() { return handle(&loss_sum_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
