// Counting ids into counters (graph in-degree, CSR row lengths): the baseline with one global
// atomic per id and its fixes (hub privatization, warp aggregation), and the ablation.
#include "validation_common.cuh"
#include "validation_kernels.cuh"

namespace atomq::validation::kernels {

__global__ void count_global_kernel(CountArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicAdd(&a.counts[a.ids[i]], 1u);
}

// Degree-ordered graphs keep their hubs at the lowest ids: those counters live in shared memory
// per block (merged once at the end), the long tail goes to global memory.
__global__ void count_hub_private_kernel(CountArgs a) {
  extern __shared__ std::uint32_t hub[];
  for (std::uint32_t c = threadIdx.x; c < a.private_counters; c += blockDim.x) hub[c] = 0u;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t id = a.ids[i];
    if (id < a.private_counters) atomicAdd(&hub[id], 1u);
    else atomicAdd(&a.counts[id], 1u);
  }
  __syncthreads();
  for (std::uint32_t c = threadIdx.x; c < a.private_counters; c += blockDim.x)
    if (hub[c] != 0u) atomicAdd(&a.counts[c], hub[c]);
}

// Lanes with equal ids elect one leader that adds their number (the loop keeps every lane of
// the warp in step, so the tail's partial warps are handled by the active mask).
__global__ void count_warp_aggregated_kernel(CountArgs a) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.n;
    const unsigned int active = __ballot_sync(0xFFFFFFFFu, valid);
    if (!valid) continue;
    const std::uint32_t id = a.ids[i];
    const unsigned int peers = __match_any_sync(active, id);
    const int lane = static_cast<int>(threadIdx.x & 31u);
    if (lane == __ffs(peers) - 1) atomicAdd(&a.counts[id], static_cast<std::uint32_t>(__popc(peers)));
  }
}

// Every counter in shared memory (dynamic size num_counters), merged once per block.
__global__ void count_block_private_kernel(CountArgs a) {
  extern __shared__ std::uint32_t local[];
  for (std::uint32_t c = threadIdx.x; c < a.num_counters; c += blockDim.x) local[c] = 0u;
  __syncthreads();
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicAdd(&local[a.ids[i]], 1u);
  __syncthreads();
  for (std::uint32_t c = threadIdx.x; c < a.num_counters; c += blockDim.x)
    if (local[c] != 0u) atomicAdd(&a.counts[c], local[c]);
}

__global__ void count_no_atomics_kernel(CountArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc += a.ids[i] * 2654435761u;
  keep_alive(acc, a.sink);
}

const void* count_global_handle() { return handle(&count_global_kernel); }
const void* count_hub_private_handle() { return handle(&count_hub_private_kernel); }
const void* count_warp_aggregated_handle() { return handle(&count_warp_aggregated_kernel); }
const void* count_block_private_handle() { return handle(&count_block_private_kernel); }
const void* count_no_atomics_handle() { return handle(&count_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
