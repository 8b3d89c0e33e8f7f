// Hopper's other atomic paths, one kernel each (model/include/atomq/model/atomic_paths.hpp):
// atomics on a cluster peer's shared memory (DSMEM) through a generic atomicAdd and through
// red.async, TMA bulk reductions of a shared tile into global memory, vector float atomicAdd
// (float2, float4), and system-scope atomicAdd (on device or host-mapped memory). Each adds
// ones, so the host checks every launch exactly. tests/gpu/atomic_path_test.cpp reads their
// SASS and counters.
#pragma once

namespace atomq::microbench::kernels {

struct DsmemArgs {
  unsigned int* out;  // gridDim.x x bins: each block's bins after the cluster's updates
  int bins;           // words of each block's shared array (dynamic shared memory)
  int per_thread;     // updates per thread into the next block of its cluster
};
// Cluster dimensions come from the launch (cudaLaunchAttributeClusterDimension).
__global__ void dsmem_atomic_add_kernel(DsmemArgs args);
__global__ void dsmem_red_async_kernel(DsmemArgs args);

struct BulkReduceArgs {
  void* global;       // `targets` tiles of tile_words words
  int tile_words;     // words of the shared tile (a multiple of 4: 16-byte bulk copies)
  int targets;        // block b's round r reduces into tile (b + r) % targets
  int rounds;         // bulk reductions per block
};
__global__ void bulk_reduce_u32_kernel(BulkReduceArgs args);
__global__ void bulk_reduce_f32_kernel(BulkReduceArgs args);

struct VectorAddArgs {
  float* words;       // `elements` float2 or float4 elements
  int elements;
  int per_thread;     // thread t adds ones to element (t + i * 97) % elements
};
__global__ void vector_add_f32x2_kernel(VectorAddArgs args);
__global__ void vector_add_f32x4_kernel(VectorAddArgs args);

struct SystemAddArgs {
  unsigned int* words;  // device or host-mapped memory
  int count;
  int per_thread;
};
__global__ void system_scope_add_kernel(SystemAddArgs args);

}  // namespace atomq::microbench::kernels
