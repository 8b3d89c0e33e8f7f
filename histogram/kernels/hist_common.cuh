// Device helpers shared by the histogram kernels: the sample walk with 16-byte loads that copes
// with any base alignment and any n, and the merge of a shared histogram into global counts.
#pragma once

#include <cstdint>

namespace atomq::histogram::kernels {

__device__ __forceinline__ uint4 load_streaming(const uint4* p) {
  // Samples are read once: the non-coherent path, no L1 allocation.
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// The 32-bit shared-window address of a shared array (what ATOMS takes).
__device__ __forceinline__ unsigned int shared_address(const void* shared) {
  return static_cast<unsigned int>(__cvta_generic_to_shared(shared));
}

// Adds 1 to the shared word at byte address `address + kOffset` (result unused: one RED, the
// offset in its immediate).
template <unsigned int kOffset = 0>
__device__ __forceinline__ void shared_add_one(unsigned int address) {
  asm volatile("red.shared.add.u32 [%0+%1], 1;" ::"r"(address), "n"(kOffset) : "memory");
}

// Adds 1 to word `value` of a shared array when value < limit, otherwise to word `spare` (which
// nothing reads). An `if` around the atomic makes the compiler open a divergence region
// (BSSY/BSYNC and a branch) per sample and re-derive the shared window's base inside it, which
// doubles the instructions of a histogram's inner loop. The added value stays the constant 1:
// an add of a register (1 or 0) compiles to ATOMS.ADD, which does not merge the lanes of a
// warp on one word as ATOMS.POPC.INC does (many_bins on 256 one-value bins: 0.2729 ms as an add
// of 0 or 1, against 0.0662 ms with the branch, in atomq hist-bench runs on the H200).
__device__ __forceinline__ void shared_add_one_or_spare(unsigned int* words, unsigned int value,
                                                        unsigned int limit, unsigned int spare) {
  atomicAdd(&words[value < limit ? value : spare], 1u);
}

template <typename T, typename F>
__device__ __forceinline__ void for_each_in_vector(const uint4& v, F& f) {
  const unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    if constexpr (sizeof(T) == 4) {
      f(words[w]);
    } else {
#pragma unroll
      for (int b = 0; b < 4; ++b) f((words[w] >> (8 * b)) & 0xFFu);
    }
  }
}

// Issues the loads of vectors first, first + stride, ... (kInFlight of them); have[k] says
// whether vector k exists (a missing one is neither loaded nor to be read).
template <int kInFlight>
__device__ __forceinline__ void load_in_flight(const uint4* vectors, unsigned long long first,
                                               unsigned long long stride, unsigned long long count,
                                               uint4 (&out)[kInFlight], bool (&have)[kInFlight]) {
#pragma unroll
  for (int k = 0; k < kInFlight; ++k) {
    have[k] = first + k * stride < count;
    if (have[k]) out[k] = load_streaming(vectors + first + k * stride);
  }
}

// Calls f(value) once for every sample; thread `tid` of `nthreads` takes its share. The head
// (before the first 16-byte boundary) and the tail (after the last whole vector) are read
// element by element, so any base pointer and any n are exact.
// before_counting() runs once, after the first loads are issued and before the first f: a
// kernel zeroes its shared histogram there (and syncs the block), while the loads are in flight.
// Every thread of the block must call this (before_counting may hold a barrier).
// kInFlight: 16-byte vectors a thread counts per step while the next step's are loading. A
// kernel with few resident threads (one block of 1024 per SM) needs more than 2 of them in
// flight to keep the memory busy (Little's law: bytes in flight = bandwidth x latency).
template <int kInFlight = 2, typename T, typename F, typename Prologue>
__device__ __forceinline__ void for_each_sample(const T* samples, unsigned long long n,
                                                unsigned long long tid,
                                                unsigned long long nthreads, F& f,
                                                Prologue&& before_counting) {
  constexpr unsigned long long kPerVector = 16 / sizeof(T);
  const auto address = reinterpret_cast<std::uintptr_t>(samples);
  unsigned long long head = ((16u - (address & 15u)) & 15u) / sizeof(T);
  if (head > n) head = n;

  const uint4* vectors = reinterpret_cast<const uint4*>(samples + head);
  const unsigned long long vector_count = (n - head) / kPerVector;
  // Software pipeline: the next kInFlight vectors are in flight while the current ones are
  // counted, so a thread always has loads outstanding.
  // Whether each vector exists is decided once, when its load is issued (an issue-bound kernel,
  // such as 8-bit samples in lane copies, pays for every 64-bit compare in this loop).
  unsigned long long i = tid;
  uint4 current[kInFlight];
  bool have[kInFlight];
  load_in_flight(vectors, i, nthreads, vector_count, current, have);
  before_counting();
  if (tid < head) f(static_cast<unsigned int>(samples[tid]));
  while (have[0]) {
    const unsigned long long next = i + kInFlight * nthreads;
    uint4 coming[kInFlight];
    bool will_have[kInFlight];
    load_in_flight(vectors, next, nthreads, vector_count, coming, will_have);
    for_each_in_vector<T>(current[0], f);
#pragma unroll
    for (int k = 1; k < kInFlight; ++k)
      if (have[k]) for_each_in_vector<T>(current[k], f);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) {
      current[k] = coming[k];
      have[k] = will_have[k];
    }
    i = next;
  }

  const unsigned long long tail_start = head + vector_count * kPerVector;
  if (tid < n - tail_start) f(static_cast<unsigned int>(samples[tail_start + tid]));
}

template <typename T, typename F>
__device__ __forceinline__ void for_each_sample(const T* samples, unsigned long long n,
                                                unsigned long long tid,
                                                unsigned long long nthreads, F& f) {
  for_each_sample(samples, n, tid, nthreads, f, [] {});
}

// Adds a block's shared histogram to the global one, skipping empty bins.
__device__ __forceinline__ void merge_to_global(const unsigned int* shared_counts,
                                                unsigned int bins, unsigned int* global_counts) {
  for (unsigned int b = threadIdx.x; b < bins; b += blockDim.x) {
    const unsigned int c = shared_counts[b];
    if (c != 0u) atomicAdd(&global_counts[b], c);
  }
}

// The same for 32 lane copies per counter (counter b's copies at words b * 32 .. b * 32 + 31).
// Thread b sums them starting at copy b % 32, so a warp's reads stay conflict-free.
__device__ __forceinline__ void merge_lane_copies_to_global(const unsigned int* lane_counts,
                                                            unsigned int counters,
                                                            unsigned int* global_counts) {
  for (unsigned int b = threadIdx.x; b < counters; b += blockDim.x) {
    unsigned int sum = 0u;
#pragma unroll 8
    for (unsigned int c = 0; c < 32u; ++c) sum += lane_counts[(b << 5) + ((c + b) & 31u)];
    if (sum != 0u) atomicAdd(&global_counts[b], sum);
  }
}

__device__ __forceinline__ void zero_shared(unsigned int* words, unsigned int count) {
  for (unsigned int i = threadIdx.x; i < count; i += blockDim.x) words[i] = 0u;
}

__device__ __forceinline__ unsigned long long global_thread_index() {
  return static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned long long global_thread_count() {
  return static_cast<unsigned long long>(gridDim.x) * blockDim.x;
}

// for_each_sample over the whole grid: every thread of every block takes its share.
template <typename T, typename F>
__device__ __forceinline__ void grid_for_each_sample(const void* samples, unsigned long long n, F& f) {
  for_each_sample(static_cast<const T*>(samples), n, global_thread_index(), global_thread_count(), f);
}

// The frame of a block-private histogram: zero the block's `words` shared counters, count
// (`walk`), then add the non-zero ones to the global counts. Every thread of the block calls it.
template <typename Walk>
__device__ __forceinline__ void with_shared_histogram(unsigned int* shared_counts, unsigned int words,
                                                      unsigned int* global_counts, Walk&& walk) {
  zero_shared(shared_counts, words);
  __syncthreads();
  walk();
  __syncthreads();
  merge_to_global(shared_counts, words, global_counts);
}

// The frame of a histogram with 32 lane copies of `counters` counters (counter b's copies at
// words b * 32 .. b * 32 + 31): the zeroing overlaps the first loads (for_each_sample's
// prologue), then the copies are summed into the global counts.
template <typename T, int kInFlight = 2, typename F>
__device__ __forceinline__ void count_in_lane_copies(const void* samples, unsigned long long n,
                                                     unsigned int* lane_counts, unsigned int counters,
                                                     unsigned int* global_counts, F& count) {
  for_each_sample<kInFlight>(static_cast<const T*>(samples), n, global_thread_index(),
                             global_thread_count(), count, [&] {
                    zero_shared(lane_counts, counters * 32u);
                    __syncthreads();
                  });
  __syncthreads();
  merge_lane_copies_to_global(lane_counts, counters, global_counts);
}

}  // namespace atomq::histogram::kernels
