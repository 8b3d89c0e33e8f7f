// A program whose kernels live in a shared library (library_kernels.cu): the executable holds
// no SASS of them. Checks the sums; exits 1 when they are wrong.
#include <cuda_runtime.h>

#include <cstdio>

extern "C" cudaError_t library_run(float* out, int n);

int main() {
  const int n = 1 << 22;
  float* out = nullptr;
  if (cudaMalloc(&out, 16 * sizeof(float)) != cudaSuccess || cudaMemset(out, 0, 16 * sizeof(float)) != cudaSuccess)
    return 2;
  const cudaError_t err = library_run(out, n);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "library_run: %s\n", cudaGetErrorString(err));
    return 2;
  }
  float host[16];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  // 2^22 adds over 4 words; each of 8 words gets 264 blocks x 32 lanes x 64 rounds.
  bool ok = true;
  for (int i = 0; i < 4; ++i) ok = ok && host[i] == n / 4;
  for (int i = 4; i < 12; ++i) ok = ok && host[i] == 264.0f * 32 * 64;
  std::printf("library_app: %s\n", ok ? "sums correct" : "WRONG sums");
  return ok ? 0 : 1;
}
