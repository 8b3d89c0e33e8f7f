#include <cooperative_groups.h>

#include "atomic_path_kernels.cuh"

namespace cg = cooperative_groups;

namespace atomq::microbench::kernels {

namespace {

__device__ void zero_bins(unsigned int* bins, int count) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) bins[i] = 0;
}

__device__ void store_bins(const DsmemArgs& a, const unsigned int* bins) {
  for (int i = threadIdx.x; i < a.bins; i += blockDim.x) a.out[static_cast<size_t>(blockIdx.x) * a.bins + i] = bins[i];
}

__device__ int bin_of(int thread, int i, int bins) { return (thread * 7 + i) % bins; }

}  // namespace

__global__ void dsmem_atomic_add_kernel(DsmemArgs a) {
  extern __shared__ unsigned int bins[];
  cg::cluster_group cluster = cg::this_cluster();
  zero_bins(bins, a.bins);
  cluster.sync();
  unsigned int* peer = cluster.map_shared_rank(bins, (cluster.block_rank() + 1) % cluster.num_blocks());
  for (int i = 0; i < a.per_thread; ++i) atomicAdd(&peer[bin_of(threadIdx.x, i, a.bins)], 1u);
  cluster.sync();
  store_bins(a, bins);
}

// red.async completes on the receiving block's mbarrier: each block expects the bytes its
// predecessor in the cluster sends (blockDim.x x per_thread words of 4 bytes).
__global__ void dsmem_red_async_kernel(DsmemArgs a) {
  extern __shared__ unsigned int bins[];
  __shared__ alignas(8) unsigned long long arrived;
  cg::cluster_group cluster = cg::this_cluster();
  zero_bins(bins, a.bins);
  const unsigned int barrier = static_cast<unsigned int>(__cvta_generic_to_shared(&arrived));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barrier));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier),
                 "r"(blockDim.x * a.per_thread * 4u));
  }
  cluster.sync();
  const unsigned int peer = (cluster.block_rank() + 1) % cluster.num_blocks();
  unsigned int peer_barrier;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_barrier) : "r"(barrier), "r"(peer));
  for (int i = 0; i < a.per_thread; ++i) {
    const unsigned int local = static_cast<unsigned int>(__cvta_generic_to_shared(&bins[bin_of(threadIdx.x, i, a.bins)]));
    unsigned int remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(peer));
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];"
                 ::"r"(remote), "r"(1u), "r"(peer_barrier) : "memory");
  }
  unsigned int done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(barrier), "r"(0u) : "memory");
  cluster.sync();
  store_bins(a, bins);
}

namespace {

template <bool kFloat>
__device__ void bulk_reduce(const BulkReduceArgs& a) {
  extern __shared__ __align__(128) unsigned int tile[];
  for (int i = threadIdx.x; i < a.tile_words; i += blockDim.x) tile[i] = kFloat ? __float_as_uint(1.f) : 1u;
  asm volatile("fence.proxy.async.shared::cta;");  // the tile's stores before the bulk copy reads it
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned int source = static_cast<unsigned int>(__cvta_generic_to_shared(tile));
  const unsigned int bytes = static_cast<unsigned int>(a.tile_words) * 4u;
  for (int r = 0; r < a.rounds; ++r) {
    char* target = static_cast<char*>(a.global) + static_cast<size_t>((blockIdx.x + r) % a.targets) * bytes;
    if (kFloat)
      asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;"
                   ::"l"(target), "r"(source), "r"(bytes) : "memory");
    else
      asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;"
                   ::"l"(target), "r"(source), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
  }
  asm volatile("cp.async.bulk.wait_group 0;");
}

}  // namespace

__global__ void bulk_reduce_u32_kernel(BulkReduceArgs a) { bulk_reduce<false>(a); }
__global__ void bulk_reduce_f32_kernel(BulkReduceArgs a) { bulk_reduce<true>(a); }

__global__ void vector_add_f32x2_kernel(VectorAddArgs a) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float2* v = reinterpret_cast<float2*>(a.words);
  for (int i = 0; i < a.per_thread; ++i) atomicAdd(&v[(t + i * 97) % a.elements], make_float2(1.f, 1.f));
}

__global__ void vector_add_f32x4_kernel(VectorAddArgs a) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float4* v = reinterpret_cast<float4*>(a.words);
  for (int i = 0; i < a.per_thread; ++i) atomicAdd(&v[(t + i * 97) % a.elements], make_float4(1.f, 1.f, 1.f, 1.f));
}

__global__ void system_scope_add_kernel(SystemAddArgs a) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < a.per_thread; ++i) atomicAdd_system(&a.words[(t + i) % a.count], 1u);
}

}  // namespace atomq::microbench::kernels
