// Hash-table build with open addressing (linear probing): a key claims a slot with atomicCAS,
// and its count is added with atomicAdd. The fix merges a warp's equal keys first.
#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

namespace {

__device__ __forceinline__ std::uint32_t home_slot(std::uint32_t key, std::uint32_t mask) {
  std::uint32_t h = key * 0x9E3779B1u;
  h ^= h >> 15;
  return h & mask;
}

// Claims key's slot (or finds it) and adds `count`. The table never fills up (load <= 0.9).
__device__ __forceinline__ void insert(const HashArgs& a, std::uint32_t key, std::uint32_t count) {
  std::uint32_t slot = home_slot(key, a.capacity_mask);
  while (true) {
    const std::uint32_t seen = atomicCAS(&a.slot_keys[slot], kEmptyKey, key);
    if (seen == kEmptyKey || seen == key) {
      atomicAdd(&a.slot_counts[slot], count);
      return;
    }
    slot = (slot + 1u) & a.capacity_mask;
  }
}

}  // namespace

__global__ void hash_cas_probe_kernel(HashArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) insert(a, a.keys[i], 1u);
}

__global__ void hash_warp_aggregated_kernel(HashArgs a) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.n;
    const unsigned int active = __ballot_sync(0xFFFFFFFFu, valid);
    if (!valid) continue;
    const std::uint32_t key = a.keys[i];
    const unsigned int peers = __match_any_sync(active, key);
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1)
      insert(a, key, static_cast<std::uint32_t>(__popc(peers)));
  }
}

__global__ void hash_no_atomics_kernel(HashArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t key = a.keys[i];
    a.slot_keys[home_slot(key, a.capacity_mask)] = key;
  }
}

const void* hash_cas_probe_handle() { return handle(&hash_cas_probe_kernel); }
const void* hash_warp_aggregated_handle() { return handle(&hash_warp_aggregated_kernel); }
const void* hash_no_atomics_handle() { return handle(&hash_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
