// Hash-table build with open addressing (linear probing): a key claims a slot with atomicCAS,
// and its count is added with atomicAdd. The fix probes occupied slots with plain loads.
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

// Test before test-and-set: occupied slots are passed with a plain load, so only the claim of
// an empty slot (and the count) is atomic.
__global__ void hash_load_then_cas_kernel(HashArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t key = a.keys[i];
    std::uint32_t slot = home_slot(key, a.capacity_mask);
    while (true) {
      std::uint32_t seen = *static_cast<volatile std::uint32_t*>(&a.slot_keys[slot]);
      if (seen == kEmptyKey) seen = atomicCAS(&a.slot_keys[slot], kEmptyKey, key);
      if (seen == kEmptyKey || seen == key) {
        atomicAdd(&a.slot_counts[slot], 1u);
        break;
      }
      slot = (slot + 1u) & a.capacity_mask;
    }
  }
}

__global__ void hash_no_atomics_kernel(HashArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t key = a.keys[i];
    a.slot_keys[home_slot(key, a.capacity_mask)] = key;
  }
}

const void* hash_cas_probe_handle() { return handle(&hash_cas_probe_kernel); }
const void* hash_load_then_cas_handle() { return handle(&hash_load_then_cas_kernel); }
const void* hash_no_atomics_handle() { return handle(&hash_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
