// Kernel handles of the validation workloads (one __global__ family per .cu file) and the
// argument blocks they take. The host side (src/) launches them with cudaLaunchKernel.
#pragma once

#include <cstdint>

#include <vector_types.h>  // float2, uchar4 (also for the host side)

namespace atomq::validation::kernels {

// Counting ids (graph in-degree, CSR row lengths, particle cells): counts[ids[i]] += 1.
struct CountArgs {
  const std::uint32_t* ids;
  unsigned long long n;
  std::uint32_t* counts;
  std::uint32_t num_counters;
  std::uint32_t private_counters;  // ids below this are counted in shared memory first
  std::uint32_t* sink;              // ablation: written only when a run-time test says so
};
const void* count_global_handle();          // one global atomicAdd per id
const void* count_hub_private_handle();     // ids < private_counters in shared memory, rest global
const void* count_warp_aggregated_handle(); // equal ids of a warp merged (__match_any_sync) first
const void* count_block_private_handle();   // every counter in shared memory, merged per block
const void* count_no_atomics_handle();      // the same reads, no atomic (ablation)

// Open-addressing hash table build: keys[] into slots (key, count), linear probing with CAS.
struct HashArgs {
  const std::uint32_t* keys;
  unsigned long long n;
  std::uint32_t* slot_keys;    // kEmptyKey where free
  std::uint32_t* slot_counts;
  std::uint32_t capacity_mask;  // capacity - 1 (a power of two)
  std::uint32_t* sink;
};
inline constexpr std::uint32_t kEmptyKey = 0xFFFFFFFFu;
const void* hash_cas_probe_handle();        // one CAS insert per key, then atomicAdd of its count
const void* hash_load_then_cas_handle();    // probe with plain loads, atomicCAS only on an empty slot
const void* hash_no_atomics_handle();       // the home slot written with plain stores (ablation)

// Particle binning: cell of (x, y) in a grid of cells_x x cells_y over the unit square.
struct BinArgs {
  const float2* positions;
  unsigned long long n;
  std::uint32_t* counts;
  std::uint32_t cells_x, cells_y;
  std::uint32_t* sink;
};
const void* bin_global_handle();
const void* bin_block_private_handle();  // dynamic shared memory: cells_x * cells_y counters
const void* bin_no_atomics_handle();

// RGBA8 image histogram: 4 channels x 256 bins (seed 001).
struct ImageArgs {
  const uchar4* pixels;
  unsigned long long n;
  std::uint32_t* counts;  // 4 * 256
  std::uint32_t* sink;
};
const void* image_shared_handle();          // one shared histogram per block
const void* image_warp_replicated_handle(); // one per warp (padded), merged per block
const void* image_no_atomics_handle();

// Weighted float histogram: bins[floor(x * bins)] += x.
struct FloatHistArgs {
  const float* values;
  unsigned long long n;
  float* sums;                  // float variant
  unsigned long long* fixed;    // fixed-point variant: sums * 2^kFixedBits
  std::uint32_t bins;
  std::uint32_t* sink;
};
inline constexpr int kFixedBits = 12;
const void* float_hist_shared_handle();      // shared float atomicAdd (a CAS loop on sm_90)
const void* float_hist_fixed_point_handle(); // shared 32-bit integer adds of fixed-point weights
const void* float_hist_no_atomics_handle();

// A two-field counter (sum, count) updated under one global spin lock, one lane per warp.
struct LockArgs {
  const std::uint32_t* values;
  unsigned long long n;
  int* locks;                   // locks[0] for the contended form, one per warp for the ablation
  unsigned long long* sum;      // sum[0] for the contended form, one per warp for the ablation
  std::uint32_t* count;
};
const void* lock_spin_handle();        // acquire, add the warp's sum and count, release
const void* lock_free_handle();        // atomicAdd on each field, once per warp
const void* lock_per_warp_handle();    // every warp its own lock and counter (conflict removed)

// Keyed reductions through a global CAS loop: out[keys[i]] = op(out[keys[i]], values[i]) on
// 32-bit words (a u32 product mod 2^32, or float bits).
enum class CasLoopOp { kProductU32, kMaxF32, kAddF32 };
struct CasLoopArgs {
  const std::uint32_t* keys;
  const std::uint32_t* values;
  unsigned long long n;
  std::uint32_t* out;          // keys_count words, set to the op's identity before a run
  std::uint32_t keys_count;    // the combined form keeps one shared word per key
  std::uint32_t* sink;
  std::uint32_t* replicas;     // copies x keys_count words (the copies form), the identity before a run
  std::uint32_t copies;
  unsigned int* blocks_done;   // 0 before a run: the last block to finish folds the copies
};
const void* cas_loop_global_handle(CasLoopOp op);    // one global CAS loop per value
const void* cas_loop_copies_handle(CasLoopOp op);    // the words spread over copies (block % copies), folded at the end
const void* cas_loop_combined_handle(CasLoopOp op);  // equal keys merged per warp, then per block; one global loop per key and block
const void* cas_loop_no_atomics_handle();            // the same reads, no atomic (ablation)

// A histogram of values < bins kept in a cluster peer's shared memory (launched in clusters of 2).
struct PeerHistArgs {
  const std::uint32_t* values;
  unsigned long long n;
  std::uint32_t* counts;  // bins words, zero before a run
  std::uint32_t bins;     // the block's shared bins (dynamic shared memory)
  std::uint32_t* sink;
};
const void* peer_hist_dsmem_handle();       // one atomicAdd per value into the next cluster block's bins
const void* peer_hist_local_handle();       // into the block's own bins
const void* peer_hist_no_atomics_handle();  // the same reads, no atomic (ablation)

// Backward of 2x bilinear upsampling (align_corners false): planes of 2 in_h x 2 in_w output
// gradients scattered into planes of in_h x in_w input gradients, four weighted adds each.
struct UpsampleArgs {
  const float* grad_out;
  unsigned long long out_pixels;  // planes * 4 * in_h * in_w
  float* grad_in;
  std::uint32_t planes, in_h, in_w;
  std::uint32_t* sink;
};
// The tile of output pixels one block step of the privatized form covers (the output's
// height and width must be multiples of these).
inline constexpr std::uint32_t kUpsampleTileRows = 16, kUpsampleTileCols = 64;
const void* upsample_bwd_global_handle();        // four global float atomicAdds per output pixel
const void* upsample_bwd_tile_private_handle();  // into the tile's input pixels in shared memory, then global
const void* upsample_bwd_no_atomics_handle();    // the same reads, indices and weights, no atomic

// Threshold sweep: m FMA steps per shared atomic; the atomic's address stride sets k.
struct SweepArgs {
  int iterations;
  int fmas_per_atomic;     // m: steps of one dependent FMA chain
  int address_stride;      // 1: distinct banks (k = 1); 32: 32-way bank conflict (k = 32)
  int with_atomics;        // 0: the same loop without the atomic (ablation)
  float* sink;
  std::uint32_t* counts;   // the block's shared words, copied out to keep them
  int atomic_lanes;        // round-trip sweep: lanes of each warp that send the atomic (1 or 32)
};
const void* threshold_sweep_handle();
// The same m FMA steps per returning global atomicAdd, each sending lane its own line (the first
// `atomic_lanes` of each warp); second argument: the words (32 per thread of the grid).
const void* round_trip_sweep_handle();

}  // namespace atomq::validation::kernels
