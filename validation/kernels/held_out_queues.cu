// Appends and dequeues through one counter (held-out round 2): a BFS frontier pushed through a
// global tail, tasks dequeued from a ticket, and a compaction through a block's shared tail.
#include "held_out_kernels.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {

constexpr unsigned kFullMask = 0xFFFFFFFFu;

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

// Rounds of a grid-stride loop that keep every lane of a warp in step (the tail's partial warps
// are inactive lanes of the last round).
__device__ __forceinline__ unsigned long long rounds(unsigned long long n) {
  return (n + global_threads() - 1) / global_threads();
}

}  // namespace

__global__ void frontier_push_global_kernel(FrontierArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t t = a.targets[i];
    if (!a.visited[t]) a.out[atomicAdd(a.tail, 1u)] = t;
  }
}

__global__ void frontier_push_warp_kernel(FrontierArgs a) {
  const unsigned long long r_end = rounds(a.n);
  for (unsigned long long r = 0; r < r_end; ++r) {
    const unsigned long long i = r * global_threads() + global_thread();
    std::uint32_t t = 0;
    bool push = false;
    if (i < a.n) {
      t = a.targets[i];
      push = !a.visited[t];
    }
    const unsigned pushers = __ballot_sync(kFullMask, push);
    if (pushers == 0u) continue;
    const int leader = __ffs(pushers) - 1;
    std::uint32_t base = 0;
    if (static_cast<int>(lane_id()) == leader) base = atomicAdd(a.tail, static_cast<std::uint32_t>(__popc(pushers)));
    base = __shfl_sync(kFullMask, base, leader);
    if (push) a.out[base + __popc(pushers & ((1u << lane_id()) - 1u))] = t;
  }
}

__global__ void frontier_push_no_atomics_kernel(FrontierArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t t = a.targets[i];
    if (!a.visited[t]) a.out[i] = t;
  }
}

__global__ void ticket_per_thread_kernel(TicketArgs a) {
  const std::uint32_t step = a.step[0];
  for (;;) {
    const std::uint32_t t = atomicAdd(a.ticket, step);
    if (t >= a.tasks) return;
    std::uint32_t sum = 0;
    for (std::uint32_t w = 0; w < kTaskWords; ++w) sum += a.data[std::size_t{t} * kTaskWords + w];
    a.out[t] = sum;
  }
}

__global__ void ticket_per_warp_kernel(TicketArgs a) {
  const std::uint32_t step = a.step[0];
  for (;;) {
    std::uint32_t base = 0;
    if (lane_id() == 0) base = atomicAdd(a.ticket, 32u * step);
    base = __shfl_sync(kFullMask, base, 0);
    if (base >= a.tasks) return;
    const std::uint32_t t = base + lane_id() * step;
    if (t < a.tasks) {
      std::uint32_t sum = 0;
      for (std::uint32_t w = 0; w < kTaskWords; ++w) sum += a.data[std::size_t{t} * kTaskWords + w];
      a.out[t] = sum;
    }
  }
}

__global__ void ticket_static_kernel(TicketArgs a) {
  for (unsigned long long t = global_thread(); t < a.tasks; t += global_threads()) {
    std::uint32_t sum = 0;
    for (std::uint32_t w = 0; w < kTaskWords; ++w) sum += a.data[t * kTaskWords + w];
    a.out[t] = sum;
  }
}

namespace {

// A value is kept when its low two bits are 0 (a quarter of uniform values).
__device__ __forceinline__ bool kept(std::uint32_t v) { return (v & 3u) == 0u; }

// The tile's kept values (s_buf[0, count)) appended to the output through one global atomicAdd.
__device__ void append_tile(const std::uint32_t* s_buf, std::uint32_t& s_count, std::uint32_t& s_base,
                            const CompactArgs& a) {
  __syncthreads();
  if (threadIdx.x == 0) s_base = atomicAdd(a.tail, s_count);
  __syncthreads();
  for (std::uint32_t j = threadIdx.x; j < s_count; j += blockDim.x) a.out[s_base + j] = s_buf[j];
  __syncthreads();
  if (threadIdx.x == 0) s_count = 0;
  __syncthreads();
}

}  // namespace

namespace {

// Every tile of the block: `keep_tile(tile, s_buf, s_count)` gathers its kept values into the
// shared buffer, then the tile is appended.
template <typename KeepTile>
__device__ void compact_tiles(const CompactArgs& a, KeepTile keep_tile) {
  __shared__ std::uint32_t s_buf[kCompactTile];
  __shared__ std::uint32_t s_count, s_base;
  if (threadIdx.x == 0) s_count = 0;
  __syncthreads();
  for (unsigned long long tile = blockIdx.x * std::uint64_t{kCompactTile}; tile < a.n;
       tile += gridDim.x * std::uint64_t{kCompactTile}) {
    keep_tile(tile, s_buf, s_count);
    append_tile(s_buf, s_count, s_base, a);
  }
}

}  // namespace

__global__ void compact_shared_tail_kernel(CompactArgs a) {
  compact_tiles(a, [&](unsigned long long tile, std::uint32_t* s_buf, std::uint32_t& s_count) {
    for (std::uint32_t j = threadIdx.x; j < kCompactTile; j += blockDim.x) {
      const std::uint32_t v = a.values[tile + j];
      if (kept(v)) s_buf[atomicAdd(&s_count, 1u)] = v;
    }
  });
}

__global__ void compact_warp_tail_kernel(CompactArgs a) {
  compact_tiles(a, [&](unsigned long long tile, std::uint32_t* s_buf, std::uint32_t& s_count) {
    // blockDim.x divides kCompactTile: every lane of a warp runs every step.
    for (std::uint32_t j = threadIdx.x; j < kCompactTile; j += blockDim.x) {
      const std::uint32_t v = a.values[tile + j];
      const bool keep = kept(v);
      const unsigned keepers = __ballot_sync(kFullMask, keep);
      std::uint32_t base = 0;
      if (lane_id() == 0 && keepers != 0u) base = atomicAdd(&s_count, static_cast<std::uint32_t>(__popc(keepers)));
      base = __shfl_sync(kFullMask, base, 0);
      if (keep) s_buf[base + __popc(keepers & ((1u << lane_id()) - 1u))] = v;
    }
  });
}

__global__ void compact_no_atomics_kernel(CompactArgs a) {
  __shared__ std::uint32_t s_buf[kCompactTile];
  for (unsigned long long tile = blockIdx.x * std::uint64_t{kCompactTile}; tile < a.n;
       tile += gridDim.x * std::uint64_t{kCompactTile}) {
    for (std::uint32_t j = threadIdx.x; j < kCompactTile; j += blockDim.x) {
      const std::uint32_t v = a.values[tile + j];
      if (kept(v)) s_buf[j] = v;
    }
    __syncthreads();
    for (std::uint32_t j = threadIdx.x; j < kCompactTile; j += blockDim.x)
      if (kept(a.values[tile + j])) a.out[tile + j] = s_buf[j];
    __syncthreads();
  }
}

const void* frontier_push_global_handle() { return handle(&frontier_push_global_kernel); }
const void* frontier_push_warp_handle() { return handle(&frontier_push_warp_kernel); }
const void* frontier_push_no_atomics_handle() { return handle(&frontier_push_no_atomics_kernel); }
const void* ticket_per_thread_handle() { return handle(&ticket_per_thread_kernel); }
const void* ticket_per_warp_handle() { return handle(&ticket_per_warp_kernel); }
const void* ticket_static_handle() { return handle(&ticket_static_kernel); }
const void* compact_shared_tail_handle() { return handle(&compact_shared_tail_kernel); }
const void* compact_warp_tail_handle() { return handle(&compact_warp_tail_kernel); }
const void* compact_no_atomics_handle() { return handle(&compact_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
