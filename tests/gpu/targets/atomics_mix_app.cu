// Four atomic patterns tried with atomq as a new user would, each with a baseline (_base), the
// usual fix (_fix) and an ablation without the atomic (_none); docs/validation.md, "New programs".
//   max_one   the maximum of 64 Mi ints into one word (atomicMax per element; fix: __reduce_max_sync,
//             one atomicMax per warp; max_one_block: one per block, measured after its prediction)
//   words     a word count: 16 Mi keys (a million distinct) hashed into 4 Mi counters (no fix)
//   hist64    a 256-bin histogram of 64 Mi samples in 64-bit counters (fix: 32-bit counters in
//             shared memory, added to the global ones once per block; fix64: 64-bit shared counters)
//   dsum      the sum of 16 Mi doubles into one word (fix: a warp shuffle sum, one atomicAdd per warp)
// `atomics_mix_app` runs each kernel once; `atomics_mix_app t` times each, median of 7, CUDA events.
// the atomic (_none): `prog` runs each once (for atomq analyze), `prog t` times each (median of 7).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#define GRID_STRIDE(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)
__device__ void sink_if(unsigned v, unsigned* sink) { if (v == 0x9E3779B9u) sink[0] = v; }

// A: the maximum of 64 Mi ints into one word.
__global__ void max_one_base(const int* x, long long n, int* out, unsigned* sink) { GRID_STRIDE(i, n) atomicMax(out, x[i]); }
__global__ void max_one_fix(const int* x, long long n, int* out, unsigned* sink) {
  for (long long b = blockIdx.x * (long long)blockDim.x; b < n; b += (long long)gridDim.x * blockDim.x) {
    long long i = b + threadIdx.x; int v = i < n ? x[i] : INT_MIN;
    v = __reduce_max_sync(0xffffffffu, v);
    if ((threadIdx.x & 31) == 0) atomicMax(out, v);
  }
}
// The recommended fix measured after its prediction: the block's maximum in shared memory, one
// atomicMax per block.
__global__ void max_one_block(const int* x, long long n, int* out, unsigned* sink) {
  __shared__ int m;
  if (threadIdx.x == 0) m = INT_MIN;
  __syncthreads();
  int v = INT_MIN;
  GRID_STRIDE(i, n) v = max(v, x[i]);
  atomicMax(&m, __reduce_max_sync(0xffffffffu, v));
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(out, m);
}
__global__ void max_one_none(const int* x, long long n, int* out, unsigned* sink) { unsigned a = 0; GRID_STRIDE(i, n) a ^= x[i]; sink_if(a, sink); }

// B: word count: 16 Mi keys hashed into 4 Mi counters.
__device__ unsigned hash_of(unsigned k) { k ^= k >> 16; k *= 0x7feb352du; k ^= k >> 15; return k & ((1u << 22) - 1); }
__global__ void words_base(const unsigned* k, long long n, unsigned* cnt, unsigned* sink) { GRID_STRIDE(i, n) atomicAdd(&cnt[hash_of(k[i])], 1u); }
__global__ void words_none(const unsigned* k, long long n, unsigned* cnt, unsigned* sink) { unsigned a = 0; GRID_STRIDE(i, n) a ^= hash_of(k[i]); sink_if(a, sink); }

// C: 256-bin histogram of 64 Mi samples in 64-bit counters.
__global__ void hist64_base(const unsigned* x, long long n, unsigned long long* bins, unsigned* sink) { GRID_STRIDE(i, n) atomicAdd(&bins[x[i] & 255u], 1ull); }
__global__ void hist64_fix(const unsigned* x, long long n, unsigned long long* bins, unsigned* sink) {
  __shared__ unsigned s[256];
  for (int t = threadIdx.x; t < 256; t += blockDim.x) s[t] = 0;
  __syncthreads();
  GRID_STRIDE(i, n) atomicAdd(&s[x[i] & 255u], 1u);
  __syncthreads();
  for (int t = threadIdx.x; t < 256; t += blockDim.x) if (s[t]) atomicAdd(&bins[t], (unsigned long long)s[t]);
}
// The same privatization with the counters kept at 64 bits in shared memory (the op the baseline
// uses, as the privatize what-if prices it).
__global__ void hist64_fix64(const unsigned* x, long long n, unsigned long long* bins, unsigned* sink) {
  __shared__ unsigned long long s[256];
  for (int t = threadIdx.x; t < 256; t += blockDim.x) s[t] = 0;
  __syncthreads();
  GRID_STRIDE(i, n) atomicAdd(&s[x[i] & 255u], 1ull);
  __syncthreads();
  for (int t = threadIdx.x; t < 256; t += blockDim.x) if (s[t]) atomicAdd(&bins[t], s[t]);
}
__global__ void hist64_none(const unsigned* x, long long n, unsigned long long* bins, unsigned* sink) { unsigned a = 0; GRID_STRIDE(i, n) a ^= x[i] & 255u; sink_if(a, sink); }

// D: the sum of 16 Mi doubles into one word.
__global__ void dsum_base(const double* x, long long n, double* out, unsigned* sink) { GRID_STRIDE(i, n) atomicAdd(out, x[i]); }
__global__ void dsum_fix(const double* x, long long n, double* out, unsigned* sink) {
  for (long long b = blockIdx.x * (long long)blockDim.x; b < n; b += (long long)gridDim.x * blockDim.x) {
    long long i = b + threadIdx.x; double v = i < n ? x[i] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
  }
}
__global__ void dsum_none(const double* x, long long n, double* out, unsigned* sink) { double a = 0; GRID_STRIDE(i, n) a += x[i]; sink_if((unsigned)a, sink); }

int main(int argc, char** argv) {
  const bool timing = argc > 1;
  const long long nA = 1ll << 26, nB = 1ll << 24, nC = 1ll << 26, nD = 1ll << 24;
  std::vector<int> hx(nA); std::vector<unsigned> hk(nB), hc(nC); std::vector<double> hd(nD);
  unsigned s = 777; auto rnd = [&] { s = s * 1664525u + 1013904223u; return s; };
  for (auto& v : hx) v = int(rnd() >> 1);
  for (auto& v : hk) v = rnd() % 1000000u;  // a million distinct words
  for (auto& v : hc) v = rnd() >> 8;
  for (auto& v : hd) v = double(rnd() % 1000) * 0.5;
  int *x, *omax; unsigned *k, *cnt, *c, *sink; unsigned long long* bins; double *d, *dsum;
  CK(cudaMalloc(&x, nA * 4)); CK(cudaMalloc(&k, nB * 4)); CK(cudaMalloc(&c, nC * 4)); CK(cudaMalloc(&d, nD * 8));
  CK(cudaMalloc(&omax, 4)); CK(cudaMalloc(&cnt, (1u << 22) * 4)); CK(cudaMalloc(&bins, 256 * 8)); CK(cudaMalloc(&dsum, 8)); CK(cudaMalloc(&sink, 4));
  CK(cudaMemcpy(x, hx.data(), nA * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(k, hk.data(), nB * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(c, hc.data(), nC * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d, hd.data(), nD * 8, cudaMemcpyHostToDevice));
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = sms * 8, block = 256;
  auto reset = [&] { CK(cudaMemset(omax, 0x80, 4)); CK(cudaMemset(cnt, 0, (1u << 22) * 4)); CK(cudaMemset(bins, 0, 256 * 8)); CK(cudaMemset(dsum, 0, 8)); CK(cudaDeviceSynchronize()); };
  struct V { const char* name; void (*run)(int, int, void**); };
  void* argsA[] = {&x, (void*)&nA, &omax, &sink}; void* argsB[] = {&k, (void*)&nB, &cnt, &sink};
  void* argsC[] = {&c, (void*)&nC, &bins, &sink}; void* argsD[] = {&d, (void*)&nD, &dsum, &sink};
  struct K { const char* name; const void* fn; void** args; } ks[] = {
    {"max_one_base", (const void*)max_one_base, argsA}, {"max_one_fix", (const void*)max_one_fix, argsA}, {"max_one_block", (const void*)max_one_block, argsA}, {"max_one_none", (const void*)max_one_none, argsA},
    {"words_base", (const void*)words_base, argsB}, {"words_none", (const void*)words_none, argsB},
    {"hist64_base", (const void*)hist64_base, argsC}, {"hist64_fix", (const void*)hist64_fix, argsC}, {"hist64_fix64", (const void*)hist64_fix64, argsC}, {"hist64_none", (const void*)hist64_none, argsC},
    {"dsum_base", (const void*)dsum_base, argsD}, {"dsum_fix", (const void*)dsum_fix, argsD}, {"dsum_none", (const void*)dsum_none, argsD}};
  for (auto& kk : ks) {
    reset();
    if (!timing) { CK(cudaLaunchKernel(kk.fn, grid, block, kk.args, 0, 0)); CK(cudaDeviceSynchronize()); continue; }
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> ms;
    CK(cudaLaunchKernel(kk.fn, grid, block, kk.args, 0, 0)); CK(cudaDeviceSynchronize());
    for (int r = 0; r < 7; ++r) { reset(); cudaEventRecord(a); CK(cudaLaunchKernel(kk.fn, grid, block, kk.args, 0, 0)); cudaEventRecord(b); cudaEventSynchronize(b); float m; cudaEventElapsedTime(&m, a, b); ms.push_back(m); }
    std::sort(ms.begin(), ms.end()); printf("TIME %s %.4f ms\n", kk.name, ms[3]);
  }
  int gm; unsigned long long hb[256]; double ds; CK(cudaMemcpy(&gm, omax, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hb, bins, 256 * 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ds, dsum, 8, cudaMemcpyDeviceToHost));
  unsigned long long tot = 0; for (auto v : hb) tot += v;
  int want = *std::max_element(hx.begin(), hx.end()); double wd = 0; for (auto v : hd) wd += v;
  printf("check max %s hist %s dsum %.1f vs %.1f\n", gm == want ? "ok" : "BAD", tot == (unsigned long long)nC ? "ok" : "BAD", ds, wd);
  return 0;
}
