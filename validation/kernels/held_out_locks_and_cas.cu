// Locks and CAS loops (held-out round 2): statistics per group under a spin lock per group, a
// segmented float max through a CAS loop, and an argmax per bucket through a 64-bit CAS loop.
#include "held_out_kernels.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {

// Ordered bits of a float (larger float, larger unsigned), then the inverted index: the largest
// key is the largest value at the smallest index.
__device__ __forceinline__ unsigned long long argmax_key(float v, unsigned long long i) {
  const std::uint32_t b = __float_as_uint(v);
  const std::uint32_t ordered = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  return (static_cast<unsigned long long>(ordered) << 32) | (0xFFFFFFFFu - static_cast<std::uint32_t>(i));
}

}  // namespace

// The lock is taken inside the branch that won it, so lanes of one warp that wait for each
// other's groups make progress (no lane spins while holding a lock its warp needs).
__global__ void group_stats_locked_kernel(GroupStatsArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t g = a.groups[i], v = a.values[i];
    bool done = false;
    while (!done) {
      if (atomicCAS(&a.locks[g], 0, 1) == 0) {
        __threadfence();  // the previous holder's writes before ours
        volatile GroupStats* s = a.stats + g;
        s->sum = s->sum + v;
        s->count = s->count + 1u;
        if (v < s->min) s->min = v;
        if (v > s->max) s->max = v;
        __threadfence();
        atomicExch(&a.locks[g], 0);
        done = true;
      }
    }
  }
}

__global__ void group_stats_lock_free_kernel(GroupStatsArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t g = a.groups[i], v = a.values[i];
    GroupStats* s = a.stats + g;
    atomicAdd(&s->sum, v);
    atomicAdd(&s->count, 1u);
    atomicMin(&s->min, v);
    atomicMax(&s->max, v);
  }
}

__global__ void group_stats_unlocked_kernel(GroupStatsArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t g = a.groups[i], v = a.values[i];
    volatile GroupStats* s = a.stats + g;
    s->sum = s->sum + v;
    s->count = s->count + 1u;
    if (v < s->min) s->min = v;
    if (v > s->max) s->max = v;
  }
}

// The float max as older code writes it: CAS max(value, current) until the CAS holds.
__global__ void segment_max_cas_kernel(SegmentMaxArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    std::uint32_t* word = a.out + a.segments[i];
    const float v = a.values[i];
    std::uint32_t old = *word, assumed;
    do {
      assumed = old;
      old = atomicCAS(word, assumed, __float_as_uint(fmaxf(v, __uint_as_float(assumed))));
    } while (old != assumed);
  }
}

// Non-negative floats order as their bit patterns: one native atomicMax.
__global__ void segment_max_native_kernel(SegmentMaxArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicMax(a.out + a.segments[i], __float_as_uint(a.values[i]));
}

__global__ void segment_max_no_atomics_kernel(SegmentMaxArgs a) {
  std::uint32_t acc = 0;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    acc += a.segments[i] ^ __float_as_uint(a.values[i]);
  keep_alive(acc, a.sink);
}

__global__ void argmax_cas_kernel(ArgmaxArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    unsigned long long* word = a.out + a.buckets[i];
    const unsigned long long key = argmax_key(a.values[i], i);
    unsigned long long old = *word, assumed;
    do {
      assumed = old;
      old = atomicCAS(word, assumed, key > assumed ? key : assumed);
    } while (old != assumed);
  }
}

// Read first: a key no larger than the bucket's holds nothing to write.
__global__ void argmax_load_then_cas_kernel(ArgmaxArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    unsigned long long* word = a.out + a.buckets[i];
    const unsigned long long key = argmax_key(a.values[i], i);
    unsigned long long old = *reinterpret_cast<volatile unsigned long long*>(word);
    while (key > old) {
      const unsigned long long seen = atomicCAS(word, old, key);
      if (seen == old) break;
      old = seen;
    }
  }
}

__global__ void argmax_no_atomics_kernel(ArgmaxArgs a) {
  std::uint32_t acc = 0;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    acc += a.buckets[i] ^ static_cast<std::uint32_t>(argmax_key(a.values[i], i) >> 32);
  keep_alive(acc, a.sink);
}

const void* group_stats_locked_handle() { return handle(&group_stats_locked_kernel); }
const void* group_stats_lock_free_handle() { return handle(&group_stats_lock_free_kernel); }
const void* group_stats_unlocked_handle() { return handle(&group_stats_unlocked_kernel); }
const void* segment_max_cas_handle() { return handle(&segment_max_cas_kernel); }
const void* segment_max_native_handle() { return handle(&segment_max_native_kernel); }
const void* segment_max_no_atomics_handle() { return handle(&segment_max_no_atomics_kernel); }
const void* argmax_cas_handle() { return handle(&argmax_cas_kernel); }
const void* argmax_load_then_cas_handle() { return handle(&argmax_load_then_cas_kernel); }
const void* argmax_no_atomics_handle() { return handle(&argmax_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
