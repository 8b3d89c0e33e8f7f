// A CUDA program that does what real programs do and profilers trip on, one behaviour per
// mode (`hostile_app MODE`; tests/integration/check_hostile.py runs each under atomq analyze):
//   fork_exec     forks; the child execs this program (mode "plain"), the parent launches too
//   many_kernels  100,000 tiny kernel launches
//   threads       8 host threads on 2 driver contexts, each launching kernels
//   device_reset  cudaDeviceReset between launches
//   stream_alloc  stream-ordered allocation (cudaMallocAsync / cudaFreeAsync) around launches
//   exit_early    _exit(0) right after a synchronized launch: no teardown, no atexit
//   fault         a kernel writes through a null pointer (illegal address)
//   sigkill       raises SIGKILL after a synchronized launch
//   plain         two launches and a normal exit
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>
#include <sys/wait.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "exit_on_cuda_error.cuh"

__global__ void count_shared(unsigned int* out) {
  __shared__ unsigned int word;
  if (threadIdx.x == 0) word = 0;
  __syncthreads();
  atomicAdd(&word, 1u);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = word;
}

__global__ void tiny(unsigned int* out) { out[threadIdx.x] += 1; }

__global__ void write_through(unsigned int* p) { p[threadIdx.x] = 1; }

namespace {

void launch_and_sync(unsigned int* out) {
  count_shared<<<64, 256>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
}

int plain() {
  unsigned int* out = nullptr;
  CHECK(cudaMalloc(&out, 64 * sizeof(unsigned int)));
  launch_and_sync(out);
  launch_and_sync(out);
  CHECK(cudaFree(out));
  return 0;
}

int fork_exec(const char* self) {
  const pid_t child = fork();
  if (child == 0) {
    execl(self, self, "plain", static_cast<char*>(nullptr));
    _exit(127);
  }
  const int rc = plain();
  int status = 0;
  waitpid(child, &status, 0);
  return rc != 0 ? rc : (WIFEXITED(status) ? WEXITSTATUS(status) : 3);
}

int many_kernels() {
  unsigned int* out = nullptr;
  CHECK(cudaMalloc(&out, 32 * sizeof(unsigned int)));
  for (int i = 0; i < 100000; ++i) tiny<<<1, 32>>>(out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  return 0;
}

#define CU_CHECK(call)                                                        \
  do {                                                                        \
    CUresult r_ = (call);                                                     \
    if (r_ != CUDA_SUCCESS) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call, r_); \
      std::exit(2);                                                           \
    }                                                                         \
  } while (0)

int threads() {
  CU_CHECK(cuInit(0));
  CUdevice device;
  CU_CHECK(cuDeviceGet(&device, 0));
  CUcontext contexts[2];
  for (auto& c : contexts) CU_CHECK(cuCtxCreate(&c, nullptr, 0, device));
  std::vector<std::thread> workers;
  for (int t = 0; t < 8; ++t)
    workers.emplace_back([&contexts, t] {
      CU_CHECK(cuCtxSetCurrent(contexts[t % 2]));
      unsigned int* out = nullptr;
      CHECK(cudaMalloc(&out, 64 * sizeof(unsigned int)));
      for (int i = 0; i < 4; ++i) launch_and_sync(out);
      CHECK(cudaFree(out));
    });
  for (auto& w : workers) w.join();
  for (auto& c : contexts) CU_CHECK(cuCtxDestroy(c));
  return 0;
}

int device_reset() {
  unsigned int* out = nullptr;
  CHECK(cudaMalloc(&out, 64 * sizeof(unsigned int)));
  launch_and_sync(out);
  CHECK(cudaDeviceReset());
  CHECK(cudaMalloc(&out, 64 * sizeof(unsigned int)));
  launch_and_sync(out);
  CHECK(cudaFree(out));
  return 0;
}

int stream_alloc() {
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  for (int i = 0; i < 4; ++i) {
    unsigned int* out = nullptr;
    CHECK(cudaMallocAsync(&out, 64 * sizeof(unsigned int), stream));
    count_shared<<<64, 256, 0, stream>>>(out);
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(out, stream));
  }
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}

int fault() {
  write_through<<<1, 32>>>(nullptr);
  const cudaError_t rc = cudaDeviceSynchronize();
  std::fprintf(stderr, "hostile_app: the faulting kernel ended with %s\n", cudaGetErrorName(rc));
  return rc == cudaSuccess ? 0 : 5;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "plain";
  if (!std::strcmp(mode, "plain")) return plain();
  if (!std::strcmp(mode, "fork_exec")) return fork_exec(argv[0]);
  if (!std::strcmp(mode, "many_kernels")) return many_kernels();
  if (!std::strcmp(mode, "threads")) return threads();
  if (!std::strcmp(mode, "device_reset")) return device_reset();
  if (!std::strcmp(mode, "stream_alloc")) return stream_alloc();
  if (!std::strcmp(mode, "fault")) return fault();
  if (!std::strcmp(mode, "exit_early") || !std::strcmp(mode, "sigkill")) {
    unsigned int* out = nullptr;
    CHECK(cudaMalloc(&out, 64 * sizeof(unsigned int)));
    launch_and_sync(out);
    std::fflush(stdout);
    if (!std::strcmp(mode, "sigkill")) std::raise(SIGKILL);
    _exit(0);
  }
  std::fprintf(stderr, "hostile_app: unknown mode %s\n", mode);
  return 64;
}
