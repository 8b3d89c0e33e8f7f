// Launch logic of the atomic-path microbenchmarks: buffers, cluster launches, timing, the
// exactness check.
#include "atomq/microbench/atomic_paths.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_buffer.hpp"
#include "atomq/cuda/device_query.hpp"
#include "atomic_path_kernels.cuh"

namespace atomq::microbench {

namespace {

constexpr int kMaxWords = 1 << 20;
constexpr int kMaxRedAsyncBytes = (1 << 20) - 1;  // an mbarrier's transaction count

void check(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

void validate(const AtomicPathConfig& c) {
  check(c.blocks >= 1 && c.threads >= 32 && c.threads <= 1024 && c.threads % 32 == 0,
        "blocks >= 1 and threads a multiple of 32 up to 1024");
  check(c.per_thread >= 1 && c.words >= 1 && c.words <= kMaxWords, "per_thread >= 1 and words in 1..2^20");
  switch (c.path) {
    case AtomicPathCase::kDsmemAtomicAdd:
    case AtomicPathCase::kDsmemRedAsync:
      check(c.cluster_size >= 2 && c.cluster_size <= 8 && c.blocks % c.cluster_size == 0,
            "cluster_size in 2..8 dividing blocks");
      check(c.words <= 12288, "bins of one block fit 48 KiB of shared memory");
      check(c.path != AtomicPathCase::kDsmemRedAsync || 4LL * c.threads * c.per_thread <= kMaxRedAsyncBytes,
            "threads x per_thread x 4 bytes within an mbarrier's transaction count");
      break;
    case AtomicPathCase::kBulkReduceU32:
    case AtomicPathCase::kBulkReduceF32:
      check(c.words % 4 == 0 && c.words <= 12288 && c.targets >= 1 && 1LL * c.targets * c.words <= kMaxWords,
            "a tile of a multiple of 4 words in 48 KiB, targets x words within 2^20");
      break;
    default: break;
  }
}

}  // namespace

struct AtomicPathBench::Impl {
  DeviceInfo device;
  DeviceBuffer words;
  unsigned int* host_words = nullptr;  // host-mapped, for kSystemScopeHost
  unsigned int* host_words_device = nullptr;
  cudaEvent_t begin{}, end{};
  explicit Impl(const DeviceInfo& d) : device(d) {
    ATOMQ_CUDA(cudaEventCreate(&begin));
    ATOMQ_CUDA(cudaEventCreate(&end));
    ATOMQ_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&host_words), kMaxWords * sizeof(unsigned int),
                             cudaHostAllocMapped));
    ATOMQ_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&host_words_device), host_words, 0));
  }
  ~Impl() {
    cudaFreeHost(host_words);
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
  }
  AtomicPathLaunch launch(const AtomicPathConfig& c);
};

AtomicPathBench::AtomicPathBench(int ordinal) {
  ATOMQ_CUDA(cudaSetDevice(ordinal));
  impl_ = std::make_unique<Impl>(describe_device(ordinal));
  impl_->words.reserve(kMaxWords * sizeof(unsigned int) * 4);  // DSMEM output: blocks x bins
}

AtomicPathBench::~AtomicPathBench() = default;

const DeviceInfo& AtomicPathBench::device() const { return impl_->device; }

AtomicPathLaunch AtomicPathBench::Impl::launch(const AtomicPathConfig& c) {
  using namespace kernels;
  const bool dsmem = c.path == AtomicPathCase::kDsmemAtomicAdd || c.path == AtomicPathCase::kDsmemRedAsync;
  const bool bulk = c.path == AtomicPathCase::kBulkReduceU32 || c.path == AtomicPathCase::kBulkReduceF32;
  const bool vector = c.path == AtomicPathCase::kVectorAddF32x2 || c.path == AtomicPathCase::kVectorAddF32x4;
  const int lanes = c.path == AtomicPathCase::kVectorAddF32x4 ? 4 : c.path == AtomicPathCase::kVectorAddF32x2 ? 2 : 1;
  const size_t out_words = dsmem ? static_cast<size_t>(c.blocks) * c.words
                           : bulk ? static_cast<size_t>(c.targets) * c.words
                                  : static_cast<size_t>(c.words) * lanes;
  words.reserve(out_words * sizeof(unsigned int));
  unsigned int* target = c.path == AtomicPathCase::kSystemScopeHost ? host_words_device : words.as<unsigned int>();
  if (c.path == AtomicPathCase::kSystemScopeHost)
    std::fill(host_words, host_words + out_words, 0u);
  else
    ATOMQ_CUDA(cudaMemset(target, 0, out_words * sizeof(unsigned int)));

  DsmemArgs dsmem_args{target, c.words, c.per_thread};
  BulkReduceArgs bulk_args{target, c.words, c.targets, c.per_thread};
  VectorAddArgs vector_args{reinterpret_cast<float*>(target), c.words, c.per_thread};
  SystemAddArgs system_args{target, c.words, c.per_thread};
  const void* kernel = nullptr;
  void* args = nullptr;
  switch (c.path) {
    case AtomicPathCase::kDsmemAtomicAdd: kernel = reinterpret_cast<const void*>(&dsmem_atomic_add_kernel); args = &dsmem_args; break;
    case AtomicPathCase::kDsmemRedAsync: kernel = reinterpret_cast<const void*>(&dsmem_red_async_kernel); args = &dsmem_args; break;
    case AtomicPathCase::kBulkReduceU32: kernel = reinterpret_cast<const void*>(&bulk_reduce_u32_kernel); args = &bulk_args; break;
    case AtomicPathCase::kBulkReduceF32: kernel = reinterpret_cast<const void*>(&bulk_reduce_f32_kernel); args = &bulk_args; break;
    case AtomicPathCase::kVectorAddF32x2: kernel = reinterpret_cast<const void*>(&vector_add_f32x2_kernel); args = &vector_args; break;
    case AtomicPathCase::kVectorAddF32x4: kernel = reinterpret_cast<const void*>(&vector_add_f32x4_kernel); args = &vector_args; break;
    default: kernel = reinterpret_cast<const void*>(&system_scope_add_kernel); args = &system_args; break;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(c.blocks);
  config.blockDim = dim3(c.threads);
  config.dynamicSmemBytes = dsmem || bulk ? static_cast<size_t>(c.words) * sizeof(unsigned int) : 0;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = dsmem ? c.cluster_size : 1;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = dsmem ? 1 : 0;
  void* params[] = {args};
  ATOMQ_CUDA(cudaEventRecord(begin));
  ATOMQ_CUDA(cudaLaunchKernelExC(&config, kernel, params));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaEventRecord(end));
  ATOMQ_CUDA(cudaEventSynchronize(end));
  float ms = 0.f;
  ATOMQ_CUDA(cudaEventElapsedTime(&ms, begin, end));

  std::vector<unsigned int> out(out_words);
  if (c.path == AtomicPathCase::kSystemScopeHost)
    std::copy(host_words, host_words + out_words, out.begin());
  else
    ATOMQ_CUDA(cudaMemcpy(out.data(), target, out_words * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  double sum = 0;
  const bool floats = vector || c.path == AtomicPathCase::kBulkReduceF32;
  for (unsigned int w : out) {
    float f;
    std::memcpy(&f, &w, sizeof f);
    sum += floats ? static_cast<double>(f) : static_cast<double>(w);
  }
  AtomicPathLaunch r;
  r.elapsed_ms = ms;
  r.updates = bulk ? static_cast<double>(c.blocks) * c.per_thread * c.words
                   : static_cast<double>(c.blocks) * c.threads * c.per_thread * lanes;
  r.exact = sum == r.updates;
  return r;
}

AtomicPathLaunch AtomicPathBench::run(const AtomicPathConfig& c) {
  validate(c);
  return impl_->launch(c);
}

}  // namespace atomq::microbench
