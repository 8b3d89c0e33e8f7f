// Held-out round 9: counts of a sorted key array and charge deposition of particles sorted by cell.
#include "held_out_round9.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {
constexpr unsigned int kFullMask = 0xFFFFFFFFu;
}  // namespace

__global__ void sorted_key_count_global_kernel(SortedKeyCountArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) atomicAdd(&a.counts[a.keys[i]], 1u);
}

// The lanes of one key elect their lowest lane, which adds their number.
__global__ void sorted_key_count_warp_merged_kernel(SortedKeyCountArgs a) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.n;
    const unsigned int active = __ballot_sync(kFullMask, valid);
    if (!valid) continue;
    const std::uint32_t key = a.keys[i];
    const unsigned int peers = __match_any_sync(active, key);
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1) atomicAdd(&a.counts[key], __popc(peers));
  }
}

__global__ void sorted_key_count_no_atomics_kernel(SortedKeyCountArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc ^= a.keys[i] * 2654435761u;
  keep_alive(acc, a.sink);
}

__global__ void sorted_particle_deposit_global_kernel(SortedParticleDepositArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    atomicAdd(&a.grid[a.cell[i]], a.charge[i]);
}

// The lanes of one cell sum their charges in lane order, so a warp's sum per cell is the same on
// every run (only the order of the warps' adds is the atomics'); their lowest lane adds it.
__global__ void sorted_particle_deposit_warp_merged_kernel(SortedParticleDepositArgs a) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.n;
    const unsigned int active = __ballot_sync(kFullMask, valid);
    if (!valid) continue;
    const std::uint32_t cell = a.cell[i];
    const float charge = a.charge[i];
    const unsigned int peers = __match_any_sync(active, cell);
    float sum = 0.0f;
    for (unsigned int rest = peers; rest != 0u; rest &= rest - 1u) sum += __shfl_sync(peers, charge, __ffs(rest) - 1);
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1) atomicAdd(&a.grid[cell], sum);
  }
}

__global__ void sorted_particle_deposit_no_atomics_kernel(SortedParticleDepositArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads())
    acc ^= a.cell[i] * 2654435761u + __float_as_uint(a.charge[i]);
  keep_alive(acc, a.sink);
}

const void* sorted_key_count_global_handle() { return handle(&sorted_key_count_global_kernel); }
const void* sorted_key_count_warp_merged_handle() { return handle(&sorted_key_count_warp_merged_kernel); }
const void* sorted_key_count_no_atomics_handle() { return handle(&sorted_key_count_no_atomics_kernel); }
const void* sorted_particle_deposit_global_handle() { return handle(&sorted_particle_deposit_global_kernel); }
const void* sorted_particle_deposit_warp_merged_handle() { return handle(&sorted_particle_deposit_warp_merged_kernel); }
const void* sorted_particle_deposit_no_atomics_handle() { return handle(&sorted_particle_deposit_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
