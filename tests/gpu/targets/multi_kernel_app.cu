// A small CUDA program with known atomic counts, profiled by the analyzer tests: as an
// unmodified program (injection) and, with --in-process FILE, through the in-process API.
//   multi_kernel_app [--in-process FILE] [--repeat N] [--threads T] [--own-context] [--exit-code C] [--crash]
// --own-context: each host thread launches in a context of its own (cuCtxCreate).
// Per repeat it launches, in order:
//   popc_distinct  ATOMS.POPC.INC, 32 lanes on 32 banks         (k = 1)
//   add_conflict32 ATOMS.ADD, 32 lanes on one bank, result used  (k = 32)
//   cas_distinct   ATOMS.CAS, 32 lanes on 32 banks               (k ~ 2)
//   no_atomics     a plain copy                                  (N = 0)
//   popc_same_ex   ATOMS.POPC.INC on one word, via cudaLaunchKernelEx
//   cooperative    ATOMS.ADD distinct, via cudaLaunchCooperativeKernel
// and once, a CUDA graph holding no_atomics (profiled as the graph's kernel node).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "atomq/run_document/profile_stream.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"

#include "exit_on_cuda_error.cuh"

constexpr int kBlocks = 264;
constexpr int kThreads = 256;     // 8 warps
// Long enough (tens of microseconds and more) that launch ramp-up and cache state do not
// move the utilization: the live and ncu-export analyses of this program are compared.
constexpr int kAtomicsPerThread = 4096;

// Zeroes the block's 1024 words and returns this thread's word: its lane's bank, its warp's row.
__device__ unsigned int* zeroed_distinct_word(unsigned int* words) {
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) words[i] = 0;
  __syncthreads();
  return &words[(threadIdx.x & 31) + 32 * ((threadIdx.x >> 5) & 31)];
}

__global__ void popc_distinct(unsigned int* sink) {
  __shared__ unsigned int words[1024];
  unsigned int* p = zeroed_distinct_word(words);
#pragma unroll 16
  for (int i = 0; i < kAtomicsPerThread; ++i) atomicAdd(p, 1u);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(sink, words[0]);
}

__global__ void add_conflict32(unsigned int* sink) {
  __shared__ unsigned int words[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) words[i] = 0;
  __syncthreads();
  unsigned int* p = &words[32 * (threadIdx.x & 31)];
  unsigned int acc = 0;
#pragma unroll 16
  for (int i = 0; i < kAtomicsPerThread; ++i) acc += atomicAdd(p, 1u);
  if (acc == 0xFFFFFFFFu) sink[1] = acc;
}

__global__ void cas_distinct(unsigned int* sink) {
  __shared__ unsigned int words[1024];
  unsigned int* p = zeroed_distinct_word(words);
  unsigned int acc = 0;
#pragma unroll 16
  for (int i = 0; i < kAtomicsPerThread; ++i) acc += atomicCAS(p, static_cast<unsigned int>(i), i + 1u);
  if (acc == 0xFFFFFFFFu) sink[2] = acc;
}

__global__ void no_atomics(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2.0f * in[i];
}

__global__ void popc_same_ex(unsigned int* sink) {
  __shared__ unsigned int word;
  if (threadIdx.x == 0) word = 0;
  __syncthreads();
#pragma unroll 16
  for (int i = 0; i < kAtomicsPerThread; ++i) atomicAdd(&word, 1u);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(sink + 3, word);
}

__global__ void cooperative(unsigned int* sink) {
  __shared__ unsigned int words[1024];
  unsigned int* p = zeroed_distinct_word(words);
  unsigned int acc = 0;
#pragma unroll 16
  for (int i = 0; i < kAtomicsPerThread; ++i) acc += atomicAdd(p, 1u);
  if (acc == 0xFFFFFFFFu) sink[4] = acc;
}

void run_once(unsigned int* sink, const float* in, float* out, int n, bool crash_midway) {
  popc_distinct<<<kBlocks, kThreads>>>(sink);
  CHECK(cudaGetLastError());
  add_conflict32<<<kBlocks, kThreads>>>(sink);
  CHECK(cudaGetLastError());
  if (crash_midway) {
    CHECK(cudaDeviceSynchronize());
    std::abort();
  }
  cas_distinct<<<kBlocks, kThreads>>>(sink);
  CHECK(cudaGetLastError());
  no_atomics<<<kBlocks, kThreads>>>(in, out, n);
  CHECK(cudaGetLastError());

  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kBlocks);
  config.blockDim = dim3(kThreads);
  CHECK(cudaLaunchKernelEx(&config, popc_same_ex, sink));

  int device = 0, sms = 0, per_sm = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cooperative, kThreads, 0));
  void* args[] = {&sink};
  CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(cooperative), dim3(sms), dim3(kThreads), args, 0, nullptr));
  CHECK(cudaDeviceSynchronize());
}

int main(int argc, char** argv) {
  std::string in_process;
  int repeat = 1, threads = 1, exit_code = 0;
  bool crash = false, own_context = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--in-process" && i + 1 < argc) in_process = argv[++i];
    else if (a == "--repeat" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--exit-code" && i + 1 < argc) exit_code = std::atoi(argv[++i]);
    else if (a == "--crash") crash = true;
    else if (a == "--own-context") own_context = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }

  std::unique_ptr<atomq::run::ProfileStreamWriter> writer;
  std::unique_ptr<atomq::analyzer::KernelProfilingSession> session;
  if (!in_process.empty()) {
    std::remove(in_process.c_str());
    writer = std::make_unique<atomq::run::ProfileStreamWriter>(in_process);
    session = std::make_unique<atomq::analyzer::KernelProfilingSession>(
        atomq::analyzer::ProfilerOptions{}, [&](const atomq::model::KernelProfile& p) { writer->write(p); });
  }

  const int n = 1 << 20;
  unsigned int* sink = nullptr;
  float *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&sink, 16 * sizeof(unsigned int)));
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemset(in, 0, n * sizeof(float)));

  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      CUcontext ctx = nullptr;
      unsigned int* my_sink = sink;
      const float* my_in = in;
      float* my_out = out;
      if (own_context) {
        CUdevice dev = 0;
        if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuCtxCreate(&ctx, nullptr, 0, dev) != CUDA_SUCCESS) {
          std::fprintf(stderr, "cuCtxCreate failed\n");
          std::exit(2);
        }
        // Buffers of this context (allocations of another context are not valid here).
        unsigned int* s2 = nullptr;
        float *i2 = nullptr, *o2 = nullptr;
        CHECK(cudaMalloc(&s2, 16 * sizeof(unsigned int)));
        CHECK(cudaMalloc(&i2, n * sizeof(float)));
        CHECK(cudaMalloc(&o2, n * sizeof(float)));
        CHECK(cudaMemset(i2, 0, n * sizeof(float)));
        my_sink = s2, my_in = i2, my_out = o2;
      }
      for (int r = 0; r < repeat; ++r) run_once(my_sink, my_in, my_out, n, crash && t == 0 && r == 0);
      if (ctx) {
        CHECK(cudaFree(my_sink));
        CHECK(cudaFree(const_cast<float*>(my_in)));
        CHECK(cudaFree(my_out));
        cuCtxDestroy(ctx);
      }
    });
  for (auto& w : workers) w.join();

  // A graph with one kernel: profiled as a kernel node when the graph is launched.
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  no_atomics<<<kBlocks, kThreads, 0, stream>>>(in, out, n);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));

  if (session) session->finish();
  std::printf("multi_kernel_app: %d repeat(s) x %d thread(s) done\n", repeat, threads);
  return exit_code;
}
