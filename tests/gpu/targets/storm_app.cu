// A program that launches each of two CAS-loop kernels on a uniform input and on a one-value
// input, in the order its argument names (u: uniform, o: one value; default "uo"), so that a
// per-instruction run measures one launch and the analysis derives the other
// (tools/per_launch_check.py compares each derived launch with a run that measures it alone):
//   storm_shared_float  float atomicAdd into 1024 shared bins: the compiler's CAS loop
//                       (ATOMS.CAST.SPIN); 16 Mi samples
//   storm_global_float  float add into 4096 global bins through a hand-written atomicCAS loop
//                       (the pre-sm_60 double add idiom); 256 Ki samples (on one value every
//                       success costs a round trip to the L2)
// Exits 0 when every launch's bins sum to its sample count.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "exit_on_cuda_error.cuh"

constexpr int kSharedBins = 1024;
constexpr int kGlobalBins = 4096;
constexpr int kSharedSamples = 1 << 24;
constexpr int kGlobalSamples = 1 << 18;
constexpr int kBlocks = 528;
constexpr int kThreads = 512;

__global__ void __launch_bounds__(kThreads) storm_shared_float(const unsigned int* items, int n, float* bins) {
  __shared__ float local[kSharedBins];
  for (int b = threadIdx.x; b < kSharedBins; b += blockDim.x) local[b] = 0.0f;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[items[i] % kSharedBins], 1.0f);
  __syncthreads();
  for (int b = threadIdx.x; b < kSharedBins; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

__device__ __forceinline__ void cas_add(float* address, float value) {
  unsigned int* word = reinterpret_cast<unsigned int*>(address);
  unsigned int seen = *word, expected;
  do {
    expected = seen;
    seen = atomicCAS(word, expected, __float_as_uint(__uint_as_float(expected) + value));
  } while (seen != expected);
}

__global__ void __launch_bounds__(kThreads) storm_global_float(const unsigned int* items, int n, float* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    cas_add(&bins[items[i] % kGlobalBins], 1.0f);
}

namespace {

std::vector<unsigned int> make_items(int n, bool one_value) {
  std::vector<unsigned int> items(static_cast<size_t>(n));
  unsigned int x = 12345u;
  for (unsigned int& v : items) {
    x = x * 1664525u + 1013904223u;  // fixed-seed LCG: the same input every run
    v = one_value ? 7u : x >> 8;
  }
  return items;
}

// Launches `kernel` on the input and checks that the bins sum to the samples.
template <typename Kernel>
bool run_case(Kernel kernel, const char* name, int n, int bins, bool one_value) {
  const std::vector<unsigned int> host = make_items(n, one_value);
  unsigned int* items = nullptr;
  float* out = nullptr;
  CHECK(cudaMalloc(&items, sizeof(unsigned int) * host.size()));
  CHECK(cudaMalloc(&out, sizeof(float) * bins));
  CHECK(cudaMemcpy(items, host.data(), sizeof(unsigned int) * host.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, sizeof(float) * bins));
  kernel<<<kBlocks, kThreads>>>(items, n, out);
  CHECK(cudaGetLastError());
  std::vector<float> result(static_cast<size_t>(bins));
  CHECK(cudaMemcpy(result.data(), out, sizeof(float) * bins, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(items));
  CHECK(cudaFree(out));
  double sum = 0;
  for (float v : result) sum += v;
  if (sum != static_cast<double>(n)) {
    std::fprintf(stderr, "%s (%s input): bins sum to %g, expected %d\n", name, one_value ? "one-value" : "uniform", sum, n);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const char* order = argc > 1 ? argv[1] : "uo";
  if (std::strspn(order, "uo") != std::strlen(order) || order[0] == '\0') {
    std::fprintf(stderr, "usage: storm_app [ORDER]  (ORDER: letters u (uniform) and o (one value), default uo)\n");
    return 2;
  }
  bool ok = true;
  for (const char* c = order; *c; ++c)
    ok = run_case(storm_shared_float, "storm_shared_float", kSharedSamples, kSharedBins, *c == 'o') && ok;
  for (const char* c = order; *c; ++c)
    ok = run_case(storm_global_float, "storm_global_float", kGlobalSamples, kGlobalBins, *c == 'o') && ok;
  if (!ok) return 1;
  std::printf("storm_app: %zu launches of each kernel, order %s\n", std::strlen(order), order);
  return 0;
}
