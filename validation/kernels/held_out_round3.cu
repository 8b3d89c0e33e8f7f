// Held-out round 3: key counts under a spin lock per hash bucket, and the k-means update step's
// float sums into a few centroids.
#include "held_out_round3.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {

// The bucket's scan: the key's slot (claimed if empty) counts one more. Plain (volatile) loads and
// stores: under the bucket's lock, or racy in the ablation.
__device__ void count_in_bucket(const ChainArgs& a, std::uint32_t bucket, std::uint32_t key) {
  volatile std::uint32_t* keys = a.slot_keys + bucket * kChainSlots;
  volatile std::uint32_t* counts = a.slot_counts + bucket * kChainSlots;
  for (std::uint32_t s = 0; s < kChainSlots; ++s) {
    if (keys[s] == kEmptyKey) keys[s] = key;
    if (keys[s] == key) {
      counts[s] = counts[s] + 1u;
      return;
    }
  }
}

}  // namespace

// The lock is taken inside the branch that won it, so lanes of one warp waiting on each other's
// buckets make progress (no lane spins while holding a lock its warp needs).
__global__ void chain_locked_kernel(ChainArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t key = a.keys[i], bucket = key % a.buckets;
    bool done = false;
    while (!done) {
      if (atomicCAS(&a.locks[bucket], 0, 1) == 0) {
        __threadfence();  // the previous holder's writes before ours
        count_in_bucket(a, bucket, key);
        __threadfence();
        atomicExch(&a.locks[bucket], 0);
        done = true;
      }
    }
  }
}

__global__ void chain_lock_free_kernel(ChainArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t key = a.keys[i], bucket = key % a.buckets;
    for (std::uint32_t s = 0; s < kChainSlots; ++s) {
      const std::uint32_t at = bucket * kChainSlots + s;
      const std::uint32_t seen = atomicCAS(&a.slot_keys[at], kEmptyKey, key);
      if (seen == kEmptyKey || seen == key) {
        atomicAdd(&a.slot_counts[at], 1u);
        break;
      }
    }
  }
}

__global__ void chain_unlocked_kernel(ChainArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t key = a.keys[i], bucket = key % a.buckets;
    count_in_bucket(a, bucket, key);
  }
}

__global__ void kmeans_global_kernel(KmeansArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t c = a.labels[i];
    for (std::uint32_t d = 0; d < kKmeansDims; ++d) atomicAdd(&a.sums[c * kKmeansDims + d], a.points[i * kKmeansDims + d]);
    atomicAdd(&a.counts[c], 1u);
  }
}

__global__ void kmeans_block_private_kernel(KmeansArgs a) {
  __shared__ float sums[kKmeansMaxCentroids * kKmeansDims];
  __shared__ std::uint32_t counts[kKmeansMaxCentroids];
  for (std::uint32_t w = threadIdx.x; w < a.centroids * kKmeansDims; w += blockDim.x) sums[w] = 0.0f;
  for (std::uint32_t w = threadIdx.x; w < a.centroids; w += blockDim.x) counts[w] = 0;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t c = a.labels[i];
    for (std::uint32_t d = 0; d < kKmeansDims; ++d) atomicAdd(&sums[c * kKmeansDims + d], a.points[i * kKmeansDims + d]);
    atomicAdd(&counts[c], 1u);
  }
  __syncthreads();
  for (std::uint32_t w = threadIdx.x; w < a.centroids * kKmeansDims; w += blockDim.x)
    if (sums[w] != 0.0f) atomicAdd(&a.sums[w], sums[w]);
  for (std::uint32_t w = threadIdx.x; w < a.centroids; w += blockDim.x)
    if (counts[w] != 0) atomicAdd(&a.counts[w], counts[w]);
}

__global__ void kmeans_no_atomics_kernel(KmeansArgs a) {
  float acc = 0.0f;
  std::uint32_t labels = 0;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    labels += a.labels[i];
    for (std::uint32_t d = 0; d < kKmeansDims; ++d) acc += a.points[i * kKmeansDims + d];
  }
  keep_alive(labels ^ __float_as_uint(acc), a.sink);
}

const void* chain_locked_handle() { return handle(&chain_locked_kernel); }
const void* chain_lock_free_handle() { return handle(&chain_lock_free_kernel); }
const void* chain_unlocked_handle() { return handle(&chain_unlocked_kernel); }
const void* kmeans_global_handle() { return handle(&kmeans_global_kernel); }
const void* kmeans_block_private_handle() { return handle(&kmeans_block_private_kernel); }
const void* kmeans_no_atomics_handle() { return handle(&kmeans_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
