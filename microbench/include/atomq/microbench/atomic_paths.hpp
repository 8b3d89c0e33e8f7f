// Host interface of the atomic-path microbenchmarks (kernels/atomic_path_kernels.cu): one case
// per path atomq names besides the shared unit and the L2 (model/atomic_paths.hpp). Each launch
// adds ones, is timed with CUDA events and checked exactly on the host. No CUDA header here.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "atomq/common/device_info.hpp"
#include "atomq/common/enum_names.hpp"

namespace atomq::microbench {

enum class AtomicPathCase {
  kDsmemAtomicAdd,     // atomicAdd into the next cluster block's shared bins (map_shared_rank)
  kDsmemRedAsync,      // red.async into them, completing on that block's mbarrier
  kBulkReduceU32,      // cp.reduce.async.bulk .add.u32 of a shared tile into global tiles
  kBulkReduceF32,      // the same, .add.f32
  kVectorAddF32x2,     // atomicAdd(float2*)
  kVectorAddF32x4,     // atomicAdd(float4*)
  kSystemScopeDevice,  // atomicAdd_system on device memory
  kSystemScopeHost,    // atomicAdd_system on host-mapped memory
};
constexpr std::array<EnumName<AtomicPathCase>, 8> enum_names(AtomicPathCase) {
  return {{{AtomicPathCase::kDsmemAtomicAdd, "dsmem_atomic_add"},
           {AtomicPathCase::kDsmemRedAsync, "dsmem_red_async"},
           {AtomicPathCase::kBulkReduceU32, "bulk_reduce_u32"},
           {AtomicPathCase::kBulkReduceF32, "bulk_reduce_f32"},
           {AtomicPathCase::kVectorAddF32x2, "vector_add_f32x2"},
           {AtomicPathCase::kVectorAddF32x4, "vector_add_f32x4"},
           {AtomicPathCase::kSystemScopeDevice, "system_scope_device"},
           {AtomicPathCase::kSystemScopeHost, "system_scope_host"}}};
}

struct AtomicPathConfig {
  AtomicPathCase path = AtomicPathCase::kDsmemAtomicAdd;
  int blocks = 264;      // a multiple of cluster_size for the DSMEM cases
  int threads = 256;
  int per_thread = 64;   // updates per thread (bulk cases: bulk reductions per block)
  int words = 256;       // DSMEM: bins per block; bulk: words per tile; vector: elements; system: words
  int cluster_size = 2;  // DSMEM cases
  int targets = 8;       // bulk cases: global tiles the blocks reduce into
};

struct AtomicPathLaunch {
  double elapsed_ms = 0;
  double updates = 0;  // ones added (elements of a vector count one each)
  bool exact = false;  // the destination sums to `updates`
};

class AtomicPathBench {
 public:
  explicit AtomicPathBench(int device);
  ~AtomicPathBench();
  AtomicPathBench(const AtomicPathBench&) = delete;
  AtomicPathBench& operator=(const AtomicPathBench&) = delete;

  const DeviceInfo& device() const;
  // Throws std::invalid_argument for a configuration the case cannot run.
  AtomicPathLaunch run(const AtomicPathConfig& config);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomq::microbench
