// A CUDA program with two atomic patterns and the fix each is usually given, tried with atomq as a
// new user would (`atomq analyze -- accumulate_app`; `accumulate_app t` times each kernel, median
// of 7 runs with CUDA events):
//   kmeans_global   k-means accumulation: 16 Mi points of 4 floats into 16 x 4 sums and 16 counts
//                   with global atomicAdd (REDG.E.ADD.F32 and REDG.E.ADD on 80 words);
//   kmeans_private  its fix: the sums and counts privatized in shared memory, merged once per block;
//   compact_global  stream compaction through one atomicAdd tail counter (the compiler already
//                   merges a warp's lanes into one ATOMG);
//   compact_warp    the same with the warp's merge written out (ballot, popc, one atomicAdd).
// The kernels below are the ones recorded in tests/unit/model/fixtures/accumulate_app-*.json.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
constexpr int K = 16, D = 4;
__global__ void kmeans_global(const float* x, const int* label, int n, float* sums, unsigned* counts) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int c = label[i];
    for (int j = 0; j < D; ++j) atomicAdd(&sums[c * D + j], x[i * D + j]);
    atomicAdd(&counts[c], 1u);
  }
}
__global__ void kmeans_private(const float* x, const int* label, int n, float* sums, unsigned* counts) {
  __shared__ float s[K * D]; __shared__ unsigned sc[K];
  for (int t = threadIdx.x; t < K * D; t += blockDim.x) s[t] = 0;
  for (int t = threadIdx.x; t < K; t += blockDim.x) sc[t] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int c = label[i];
    for (int j = 0; j < D; ++j) atomicAdd(&s[c * D + j], x[i * D + j]);
    atomicAdd(&sc[c], 1u);
  }
  __syncthreads();
  for (int t = threadIdx.x; t < K * D; t += blockDim.x) atomicAdd(&sums[t], s[t]);
  for (int t = threadIdx.x; t < K; t += blockDim.x) atomicAdd(&counts[t], sc[t]);
}
__global__ void compact_global(const int* in, int n, int* out, unsigned* tail) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int v = in[i];
    if (v & 1) out[atomicAdd(tail, 1u)] = v;
  }
}
__global__ void compact_warp(const int* in, int n, int* out, unsigned* tail) {
  for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
    int i = base + threadIdx.x;
    int v = i < n ? in[i] : 0;
    bool keep = i < n && (v & 1);
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    int lane = threadIdx.x & 31;
    unsigned first = 0;
    if (lane == 0 && mask) first = atomicAdd(tail, __popc(mask));
    first = __shfl_sync(0xffffffffu, first, 0);
    if (keep) out[first + __popc(mask & ((1u << lane) - 1))] = v;
  }
}
int main(int argc, char** argv) {
  const int n = 1 << 24; const bool timing = argc > 1;
  std::vector<float> hx(size_t(n) * D); std::vector<int> hl(n), hin(n);
  unsigned s = 12345; auto rnd = [&] { s = s * 1664525u + 1013904223u; return s >> 8; };
  for (auto& v : hx) v = float(rnd() % 100);
  for (auto& v : hl) v = rnd() % K;
  for (auto& v : hin) v = int(rnd());
  float *x, *sums; int *label, *in, *out; unsigned *counts, *tail;
  CK(cudaMalloc(&x, hx.size() * 4)); CK(cudaMalloc(&label, n * 4)); CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&sums, K * D * 4)); CK(cudaMalloc(&counts, K * 4)); CK(cudaMalloc(&tail, 4));
  CK(cudaMemcpy(x, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(label, hl.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(in, hin.data(), n * 4, cudaMemcpyHostToDevice));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = sms * 8, block = 256;
  auto reset = [&] { CK(cudaMemset(sums, 0, K * D * 4)); CK(cudaMemset(counts, 0, K * 4)); CK(cudaMemset(tail, 0, 4)); CK(cudaDeviceSynchronize()); };
  auto launch = [&](int which) {
    if (which == 0) kmeans_global<<<grid, block>>>(x, label, n, sums, counts);
    if (which == 1) kmeans_private<<<grid, block>>>(x, label, n, sums, counts);
    if (which == 2) compact_global<<<grid, block>>>(in, n, out, tail);
    if (which == 3) compact_warp<<<grid, block>>>(in, n, out, tail);
  };
  const char* names[] = {"kmeans_global", "kmeans_private", "compact_global", "compact_warp"};
  for (int w = 0; w < 4; ++w) {
    reset();
    if (!timing) { launch(w); CK(cudaDeviceSynchronize()); unsigned t = 0; CK(cudaMemcpy(&t, tail, 4, cudaMemcpyDeviceToHost)); printf("%s done tail %u\n", names[w], t); continue; }
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ms;
    launch(w); CK(cudaDeviceSynchronize());
    for (int r = 0; r < 7; ++r) { reset(); cudaEventRecord(a); launch(w); cudaEventRecord(b); cudaEventSynchronize(b); float m; cudaEventElapsedTime(&m, a, b); ms.push_back(m); }
    std::sort(ms.begin(), ms.end()); printf("TIME %s %.4f ms\n", names[w], ms[3]);
  }
  return 0;
}
