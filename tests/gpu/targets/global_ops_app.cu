// A CUDA program whose global atomics are the ops the L2 section calibrates beyond 32-bit adds,
// as users write them (`atomq analyze -- global_ops_app`, tests/integration/check_global_ops.py):
//   scatter_f64_hot  double scatter-add into 256 bins, a quarter into bin 0: REDG.E.ADD.F64
//   scatter_half2    __half2 scatter-add into 1024 pairs: ATOM.E.ADD.F16x2 (generic address)
//   hash_exch        a hash table's slot store, result used: ATOMG.E.EXCH
//   ticket_u64       a 64-bit ticket counter, result used (one address): ATOMG.E.ADD.64
//   bitmap_xor       a bitmap's parity flips: REDG.E.XOR, which has no calibrated op of its own
// Checks every result; exits 1 when one is wrong.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "exit_on_cuda_error.cuh"

constexpr int kN = 1 << 22;
constexpr int kBins = 256;
constexpr int kThreads = 256;
constexpr int kSlots = 1 << 16;
constexpr int kHalves = kN / 2048;  // scatter_half2: 2048 updates per half

// The bin of element i: a quarter of the elements into bin 0, the rest spread by a hash.
__device__ __host__ inline unsigned bin_of(unsigned i) {
  const unsigned h = i * 2654435761u;
  return (h >> 30) == 0 ? 0u : (h >> 8) % kBins;
}

__global__ void scatter_f64_hot(double* bins) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < kN; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[bin_of(i)], 1.0);
}

// Each of the 4 Mi updates adds 1 to one half of a pair: i / 2048 picks one of 2048 halves
// (1024 pairs), so every half ends at 2048, the largest count exact in half precision.
__global__ void scatter_half2(__half2* pairs) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < kN; i += gridDim.x * blockDim.x) {
    const unsigned half = (i * 2654435761u) % kHalves;  // a bijection on i mod kHalves
    atomicAdd(&pairs[half / 2], half % 2 ? __floats2half2_rn(0.0f, 1.0f) : __floats2half2_rn(1.0f, 0.0f));
  }
}

__global__ void hash_exch(unsigned* slots, unsigned* replaced) {
  unsigned evicted = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < kN; i += gridDim.x * blockDim.x)
    evicted += atomicExch(&slots[(i * 2654435761u) % kSlots], i + 1) != 0;
  atomicAdd(replaced, evicted);
}

__global__ void ticket_u64(unsigned long long* counter, unsigned long long* checksum) {
  unsigned long long sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < kN; i += gridDim.x * blockDim.x)
    sum += atomicAdd(counter, 1ull);
  atomicAdd(checksum, sum);
}

__global__ void bitmap_xor(unsigned* bitmap) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < kN; i += gridDim.x * blockDim.x)
    atomicXor(&bitmap[bin_of(i)], 1u << (i & 31));
}

int main() {
  const int blocks = 132 * 8;
  double* f64 = nullptr;
  __half2* h2 = nullptr;
  unsigned *slots = nullptr, *replaced = nullptr, *bitmap = nullptr;
  unsigned long long *counter = nullptr, *checksum = nullptr;
  CHECK(cudaMalloc(&f64, kBins * sizeof(double)));
  CHECK(cudaMalloc(&h2, kHalves / 2 * sizeof(__half2)));
  CHECK(cudaMalloc(&slots, kSlots * sizeof(unsigned)));
  CHECK(cudaMalloc(&replaced, sizeof(unsigned)));
  CHECK(cudaMalloc(&bitmap, kBins * sizeof(unsigned)));
  CHECK(cudaMalloc(&counter, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&checksum, sizeof(unsigned long long)));
  CHECK(cudaMemset(f64, 0, kBins * sizeof(double)));
  CHECK(cudaMemset(h2, 0, kHalves / 2 * sizeof(__half2)));
  CHECK(cudaMemset(slots, 0, kSlots * sizeof(unsigned)));
  CHECK(cudaMemset(replaced, 0, sizeof(unsigned)));
  CHECK(cudaMemset(bitmap, 0, kBins * sizeof(unsigned)));
  CHECK(cudaMemset(counter, 0, sizeof(unsigned long long)));
  CHECK(cudaMemset(checksum, 0, sizeof(unsigned long long)));
  scatter_f64_hot<<<blocks, kThreads>>>(f64);
  scatter_half2<<<blocks, kThreads>>>(h2);
  hash_exch<<<blocks, kThreads>>>(slots, replaced);
  ticket_u64<<<blocks, kThreads>>>(counter, checksum);
  bitmap_xor<<<blocks, kThreads>>>(bitmap);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<unsigned> expected(kBins, 0), parity(kBins, 0);
  for (unsigned i = 0; i < kN; ++i) ++expected[bin_of(i)], parity[bin_of(i)] ^= 1u << (i & 31);
  std::vector<double> hf64(kBins);
  std::vector<__half2> hh2(kHalves / 2);
  std::vector<unsigned> hbitmap(kBins);
  unsigned hreplaced = 0;
  unsigned long long hcounter = 0, hchecksum = 0;
  CHECK(cudaMemcpy(hf64.data(), f64, kBins * sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hh2.data(), h2, kHalves / 2 * sizeof(__half2), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hbitmap.data(), bitmap, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hreplaced, replaced, sizeof hreplaced, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hcounter, counter, sizeof hcounter, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hchecksum, checksum, sizeof hchecksum, cudaMemcpyDeviceToHost));
  bool ok = hcounter == kN && hchecksum == static_cast<unsigned long long>(kN) * (kN - 1) / 2;
  ok = ok && hreplaced == kN - kSlots;  // the multiplier is odd: every slot is hit kN / kSlots times
  for (int b = 0; b < kBins; ++b) ok = ok && hf64[b] == expected[b] && hbitmap[b] == parity[b];
  for (const __half2& pair : hh2) ok = ok && __low2float(pair) == 2048.0f && __high2float(pair) == 2048.0f;
  std::printf("global_ops_app: %s\n", ok ? "results correct" : "WRONG results");
  return ok ? 0 : 1;
}
