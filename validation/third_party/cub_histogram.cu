// CUB's DeviceHistogram::HistogramEven over 8-bit samples, 256 bins: a third-party kernel for
// atomq (the library's own privatized histogram; nothing here is atomq's code).
//   cub_histogram INPUT [N]     INPUT: uniform | single | skewed
// Runs the histogram 3 times, checks the counts against a CPU count, prints the median time of
// 11 runs (CUDA events) as JSON; exits 1 on a wrong count.
#include <cub/device/device_histogram.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e));          \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cub_histogram uniform|single|skewed [N]\n");
    return 2;
  }
  const char* input = argv[1];
  const int n = argc > 2 ? std::atoi(argv[2]) : (1 << 26);
  std::vector<unsigned char> host(n);
  std::mt19937 rng(7);
  if (!std::strcmp(input, "single")) {
    std::fill(host.begin(), host.end(), 42);
  } else if (!std::strcmp(input, "skewed")) {
    std::geometric_distribution<int> geo(0.3);
    for (auto& v : host) v = static_cast<unsigned char>(std::min(geo(rng), 255));
  } else {
    for (auto& v : host) v = static_cast<unsigned char>(rng());
  }
  unsigned char* samples;
  int* bins;
  CHECK(cudaMalloc(&samples, n));
  CHECK(cudaMalloc(&bins, 256 * sizeof(int)));
  CHECK(cudaMemcpy(samples, host.data(), n, cudaMemcpyHostToDevice));
  size_t temp_bytes = 0;
  CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, samples, bins, 257, 0, 256, n));
  void* temp;
  CHECK(cudaMalloc(&temp, temp_bytes));
  auto run = [&] {
    CHECK(cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, bins, 257, 0, 256, n));
  };
  for (int i = 0; i < 3; ++i) run();
  std::vector<int> got(256), want(256, 0);
  CHECK(cudaMemcpy(got.data(), bins, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  for (unsigned char v : host) ++want[v];
  if (got != want) {
    std::fprintf(stderr, "cub_histogram %s: wrong counts\n", input);
    return 1;
  }
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(11);
  for (float& t : ms) {
    CHECK(cudaEventRecord(start));
    run();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  std::nth_element(ms.begin(), ms.begin() + 5, ms.end());
  std::printf("{\"input\": \"%s\", \"n\": %d, \"median_ms\": %.5f}\n", input, n, ms[5]);
  return 0;
}
