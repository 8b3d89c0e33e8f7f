// A program that launches a histogram kernel and a kernel after it 10 times directly, then
// captures the same work (a memset, the two kernels) into a CUDA graph, destroys the graph
// once instantiated, and launches the executable graph 10 times. Same input each time, so
// tests/integration/check_graph.py can compare the graph's kernel nodes with the direct
// launches. The second kernel accumulates over all 20 launches, so a graph launch that a
// profiler repeated without restoring memory shows in the result. Exits 0 when the result
// matches a CPU reference.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "exit_on_cuda_error.cuh"

constexpr int kBins = 64;
constexpr int kItems = 1 << 20;
constexpr int kLaunches = 10;

__global__ void graph_histogram(const unsigned int* items, int n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[items[i] % kBins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

__global__ void graph_scale(unsigned int* bins, unsigned int* scaled) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < kBins) scaled[b] += 2 * bins[b] + 1;
}

namespace {

void enqueue(cudaStream_t stream, const unsigned int* items, unsigned int* bins, unsigned int* scaled) {
  CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned int), stream));
  graph_histogram<<<264, 256, 0, stream>>>(items, kItems, bins);
  graph_scale<<<1, kBins, 0, stream>>>(bins, scaled);
}

}  // namespace

int main() {
  // Skewed items: one value in four is 0, the rest spread over the bins.
  std::vector<unsigned int> items(kItems);
  for (int i = 0; i < kItems; ++i) items[i] = (i % 4 == 0) ? 0u : static_cast<unsigned int>((i * 2654435761u) >> 7);
  std::vector<unsigned int> expected(kBins, 0);
  for (unsigned int v : items) ++expected[v % kBins];

  unsigned int *d_items = nullptr, *bins = nullptr, *scaled = nullptr;
  CHECK(cudaMalloc(&d_items, kItems * sizeof(unsigned int)));
  CHECK(cudaMalloc(&bins, kBins * sizeof(unsigned int)));
  CHECK(cudaMalloc(&scaled, kBins * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_items, items.data(), kItems * sizeof(unsigned int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(scaled, 0, kBins * sizeof(unsigned int)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  for (int i = 0; i < kLaunches; ++i) enqueue(stream, d_items, bins, scaled);
  CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  enqueue(stream, d_items, bins, scaled);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));  // the executable graph lives on
  for (int i = 0; i < kLaunches; ++i) CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));

  std::vector<unsigned int> got(kBins);
  CHECK(cudaMemcpy(got.data(), scaled, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBins; ++b) {
    const unsigned int want = 2 * kLaunches * (2 * expected[b] + 1);
    if (got[b] != want) {
      std::fprintf(stderr, "bin %d: %u, expected %u\n", b, got[b], want);
      return 1;
    }
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaStreamDestroy(stream));
  std::printf("graph_app: %d direct and %d graph launches, result correct\n", kLaunches, kLaunches);
  return 0;
}
