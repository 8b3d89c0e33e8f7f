// One worker of a multi-process job: it takes its rank from the launcher's variables (RANK,
// else LOCAL_RANK), runs on GPU rank % device count, and updates shared-memory counters with
// a conflict that depends on the rank: rank 0 spreads a warp's lanes over 32 words, every
// other rank sends all 32 lanes to one word. The lanes add different values (1 or 2), so the
// compiler cannot turn the adds into ATOMS.POPC.INC, whose same-address lanes merge. tests/integration/check_ranks.py analyzes two
// of them through a launcher and expects the slower rank to be reported.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "exit_on_cuda_error.cuh"

__global__ void rank_counters(unsigned int* out, int lanes_per_word, int rounds) {
  __shared__ unsigned int words[32];
  if (threadIdx.x < 32) words[threadIdx.x] = 0;
  __syncthreads();
  const int word = (threadIdx.x % 32) / lanes_per_word;
  const unsigned int value = 1u + (threadIdx.x & 1u);
  for (int r = 0; r < rounds; ++r) atomicAdd(&words[word], value);
  __syncthreads();
  if (threadIdx.x < 32) atomicAdd(&out[threadIdx.x], words[threadIdx.x]);
}

int main() {
  const char* rank_text = std::getenv("RANK");
  if (rank_text == nullptr) rank_text = std::getenv("LOCAL_RANK");
  const int rank = rank_text ? std::atoi(rank_text) : 0;
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  CHECK(cudaSetDevice(rank % devices));
  const int lanes_per_word = rank == 0 ? 1 : 32;
  unsigned int* out = nullptr;
  CHECK(cudaMalloc(&out, 32 * sizeof(unsigned int)));
  CHECK(cudaMemset(out, 0, 32 * sizeof(unsigned int)));
  for (int i = 0; i < 3; ++i) rank_counters<<<264, 512>>>(out, lanes_per_word, 256);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned int total = 0, host[32];
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  for (unsigned int v : host) total += v;
  const unsigned int expected = 3u * 264u * 256u * (256u * 1u + 256u * 2u);  // 256 lanes add 1, 256 add 2
  std::printf("rank %d on GPU %d: %u updates (%s)\n", rank, rank % devices, total, total == expected ? "ok" : "WRONG");
  return total == expected ? 0 : 1;
}
