// A program on Hopper's other atomic paths, as a user's would be: a histogram into a cluster
// peer's shared memory (generic atomicAdd through map_shared_rank) and one through red.async,
// tiles merged by a TMA bulk reduction, float4 atomicAdd, and counters updated with
// atomicAdd_system on host-mapped and on device memory. Each result is checked; prints
// "results correct". tests/integration/check_paths.py reads atomq's analysis of it.
#include <cooperative_groups.h>

#include <cstdio>
#include <vector>

#include "exit_on_cuda_error.cuh"

namespace cg = cooperative_groups;

constexpr int kBlocks = 264, kThreads = 256, kBins = 256, kPerThread = 64, kTile = 1024;

__global__ void __cluster_dims__(2, 1, 1) peer_histogram(unsigned* out) {
  __shared__ unsigned bins[kBins];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) bins[i] = 0;
  cluster.sync();
  unsigned* peer = cluster.map_shared_rank(bins, (cluster.block_rank() + 1) % 2);
  for (int i = 0; i < kPerThread; ++i) atomicAdd(&peer[(threadIdx.x * 7 + i) % kBins], 1u);
  cluster.sync();
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) out[blockIdx.x * kBins + i] = bins[i];
}

__global__ void __cluster_dims__(2, 1, 1) peer_histogram_async(unsigned* out) {
  __shared__ unsigned bins[kBins];
  __shared__ alignas(8) unsigned long long arrived;
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) bins[i] = 0;
  const unsigned barrier = static_cast<unsigned>(__cvta_generic_to_shared(&arrived));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barrier));
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(kThreads * kPerThread * 4));
  }
  cluster.sync();
  const unsigned peer = (cluster.block_rank() + 1) % 2;
  unsigned peer_barrier;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_barrier) : "r"(barrier), "r"(peer));
  for (int i = 0; i < kPerThread; ++i) {
    const unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(&bins[(threadIdx.x * 7 + i) % kBins]));
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(peer));
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];"
                 ::"r"(remote), "r"(1u), "r"(peer_barrier) : "memory");
  }
  unsigned done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(barrier), "r"(0u) : "memory");
  cluster.sync();
  for (int i = threadIdx.x; i < kBins; i += blockDim.x) out[blockIdx.x * kBins + i] = bins[i];
}

__global__ void merge_tiles(float* sums) {
  __shared__ alignas(128) float tile[kTile];
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) tile[i] = 1.f;
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int r = 0; r < 16; ++r) {
    float* target = sums + ((blockIdx.x + r) % 8) * kTile;
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;"
                 ::"l"(target), "r"(static_cast<unsigned>(__cvta_generic_to_shared(tile))), "r"(kTile * 4) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
  }
  asm volatile("cp.async.bulk.wait_group 0;");
}

__global__ void accumulate_float4(float4* sums) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < 16; ++i) atomicAdd(&sums[(t + i * 97) % 1024], make_float4(1.f, 1.f, 1.f, 1.f));
}

__global__ void count_system(unsigned* counters, int per_thread) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < per_thread; ++i) atomicAdd_system(&counters[(t + i) % 64], 1u);
}

template <typename T>
double sum_of(const T* device, size_t count) {
  std::vector<T> host(count);
  CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  double s = 0;
  for (const T& v : host) s += static_cast<double>(v);
  return s;
}

int main() {
  unsigned *bins, *device_counters, *host_counters, *host_counters_device;
  float* sums;
  CHECK(cudaMalloc(&bins, sizeof(unsigned) * kBlocks * kBins));
  CHECK(cudaMalloc(&sums, sizeof(float) * 8 * kTile));
  CHECK(cudaMalloc(&device_counters, sizeof(unsigned) * 64));
  CHECK(cudaHostAlloc(&host_counters, sizeof(unsigned) * 64, cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&host_counters_device, host_counters, 0));
  bool ok = true;
  const double updates = 1.0 * kBlocks * kThreads * kPerThread;
  peer_histogram<<<kBlocks, kThreads>>>(bins);
  CHECK(cudaGetLastError());
  ok = ok && sum_of(bins, kBlocks * kBins) == updates;
  peer_histogram_async<<<kBlocks, kThreads>>>(bins);
  CHECK(cudaGetLastError());
  ok = ok && sum_of(bins, kBlocks * kBins) == updates;
  CHECK(cudaMemset(sums, 0, sizeof(float) * 8 * kTile));
  merge_tiles<<<kBlocks, 128>>>(sums);
  CHECK(cudaGetLastError());
  ok = ok && sum_of(sums, 8 * kTile) == 1.0 * kBlocks * 16 * kTile;
  CHECK(cudaMemset(sums, 0, sizeof(float) * 4 * 1024));
  accumulate_float4<<<kBlocks, kThreads>>>(reinterpret_cast<float4*>(sums));
  CHECK(cudaGetLastError());
  ok = ok && sum_of(sums, 4 * 1024) == 4.0 * kBlocks * kThreads * 16;
  CHECK(cudaMemset(device_counters, 0, sizeof(unsigned) * 64));
  count_system<<<kBlocks, kThreads>>>(device_counters, 16);
  CHECK(cudaGetLastError());
  ok = ok && sum_of(device_counters, 64) == 16.0 * kBlocks * kThreads;
  for (int i = 0; i < 64; ++i) host_counters[i] = 0;
  count_system<<<kBlocks, kThreads>>>(host_counters_device, 2);
  CHECK(cudaDeviceSynchronize());
  double host_sum = 0;
  for (int i = 0; i < 64; ++i) host_sum += host_counters[i];
  ok = ok && host_sum == 2.0 * kBlocks * kThreads;
  std::printf(ok ? "results correct\n" : "results WRONG\n");
  CHECK(cudaFreeHost(host_counters));
  return ok ? 0 : 1;
}
