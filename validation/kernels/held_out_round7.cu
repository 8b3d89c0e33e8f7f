// Held-out round 7: a COO sparse matrix-vector product, the scatter of a bucket sort, and a
// visited bitmap.
#include "held_out_round7.cuh"
#include "validation_common.cuh"

namespace atomq::validation::kernels {

namespace {
constexpr unsigned int kFullMask = 0xFFFFFFFFu;
}  // namespace

__global__ void coo_spmv_global_kernel(CooSpmvArgs a) {
  for (unsigned long long i = global_thread(); i < a.nonzeros; i += global_threads())
    atomicAdd(&a.y[a.row[i]], a.val[i] * a.x[a.col[i]]);
}

// Rows are sorted, so a warp's nonzeros of one row are adjacent lanes: an inclusive scan that
// stops at a row change leaves each row's sum in its last lane, which adds it. Every lane takes
// part in each round (the tail's lanes carry no row).
__global__ void coo_spmv_warp_segmented_kernel(CooSpmvArgs a) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.nonzeros + stride - 1) / stride;
  const unsigned int lane = threadIdx.x & 31u;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.nonzeros;
    const std::uint32_t row = valid ? a.row[i] : 0xFFFFFFFFu;
    float v = valid ? a.val[i] * a.x[a.col[i]] : 0.0f;
    for (unsigned int offset = 1; offset < 32u; offset <<= 1) {
      const float up = __shfl_up_sync(kFullMask, v, offset);
      const std::uint32_t up_row = __shfl_up_sync(kFullMask, row, offset);
      if (lane >= offset && up_row == row) v += up;
    }
    const std::uint32_t next_row = __shfl_down_sync(kFullMask, row, 1);
    if (valid && (lane == 31u || next_row != row)) atomicAdd(&a.y[row], v);
  }
}

__global__ void coo_spmv_no_atomics_kernel(CooSpmvArgs a) {
  float acc = 0.0f;
  for (unsigned long long i = global_thread(); i < a.nonzeros; i += global_threads())
    acc += a.val[i] * a.x[a.col[i]] * static_cast<float>(a.row[i] & 7u);
  keep_alive(static_cast<std::uint32_t>(acc), a.sink);
}

__global__ void bucket_scatter_global_kernel(BucketScatterArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t key = a.keys[i];
    const std::uint32_t bucket = key >> kScatterShift;
    a.out[a.bucket_start[bucket] + atomicAdd(&a.fill[bucket], 1u)] = key;
  }
}

// A tile of kScatterTileItems keys per thread: each key's rank among the tile's keys of its bucket
// from a shared atomicAdd, then one global atomicAdd per bucket reserves the tile's slots.
__global__ void bucket_scatter_tile_ranked_kernel(BucketScatterArgs a) {
  __shared__ std::uint32_t count[kScatterBuckets];
  __shared__ std::uint32_t base[kScatterBuckets];
  const unsigned long long tile = static_cast<unsigned long long>(blockDim.x) * kScatterTileItems;
  for (unsigned long long first = blockIdx.x * tile; first < a.n; first += gridDim.x * tile) {
    for (unsigned int b = threadIdx.x; b < kScatterBuckets; b += blockDim.x) count[b] = 0u;
    __syncthreads();
    std::uint32_t key[kScatterTileItems], rank[kScatterTileItems];
#pragma unroll
    for (unsigned int j = 0; j < kScatterTileItems; ++j) {
      const unsigned long long i = first + j * blockDim.x + threadIdx.x;
      key[j] = i < a.n ? a.keys[i] : 0u;
      if (i < a.n) rank[j] = atomicAdd(&count[key[j] >> kScatterShift], 1u);
    }
    __syncthreads();
    for (unsigned int b = threadIdx.x; b < kScatterBuckets; b += blockDim.x)
      base[b] = count[b] != 0u ? a.bucket_start[b] + atomicAdd(&a.fill[b], count[b]) : 0u;
    __syncthreads();
#pragma unroll
    for (unsigned int j = 0; j < kScatterTileItems; ++j) {
      const unsigned long long i = first + j * blockDim.x + threadIdx.x;
      if (i < a.n) a.out[base[key[j] >> kScatterShift] + rank[j]] = key[j];
    }
    __syncthreads();  // the next tile zeroes the counts
  }
}

__global__ void bucket_scatter_no_atomics_kernel(BucketScatterArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t key = a.keys[i];
    acc += a.bucket_start[key >> kScatterShift];
    a.out[i] = key;
  }
  keep_alive(acc, a.sink);
}

__global__ void visited_bitmap_global_kernel(VisitedBitmapArgs a) {
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) {
    const std::uint32_t id = a.ids[i];
    atomicOr(&a.bits[id >> 5], 1u << (id & 31u));
  }
}

// The lanes of one word elect their lowest lane, which ORs in all their bits.
__global__ void visited_bitmap_warp_merged_kernel(VisitedBitmapArgs a) {
  const unsigned long long stride = global_threads();
  const unsigned long long rounds = (a.n + stride - 1) / stride;
  for (unsigned long long r = 0; r < rounds; ++r) {
    const unsigned long long i = r * stride + global_thread();
    const bool valid = i < a.n;
    const unsigned int active = __ballot_sync(kFullMask, valid);
    if (!valid) continue;
    const std::uint32_t id = a.ids[i];
    const std::uint32_t word = id >> 5;
    const unsigned int peers = __match_any_sync(active, word);
    const std::uint32_t bits = __reduce_or_sync(peers, 1u << (id & 31u));
    if (static_cast<int>(threadIdx.x & 31u) == __ffs(peers) - 1) atomicOr(&a.bits[word], bits);
  }
}

__global__ void visited_bitmap_no_atomics_kernel(VisitedBitmapArgs a) {
  std::uint32_t acc = 0u;
  for (unsigned long long i = global_thread(); i < a.n; i += global_threads()) acc ^= a.ids[i] * 2654435761u;
  keep_alive(acc, a.sink);
}

const void* coo_spmv_global_handle() { return handle(&coo_spmv_global_kernel); }
const void* coo_spmv_warp_segmented_handle() { return handle(&coo_spmv_warp_segmented_kernel); }
const void* coo_spmv_no_atomics_handle() { return handle(&coo_spmv_no_atomics_kernel); }
const void* bucket_scatter_global_handle() { return handle(&bucket_scatter_global_kernel); }
const void* bucket_scatter_tile_ranked_handle() { return handle(&bucket_scatter_tile_ranked_kernel); }
const void* bucket_scatter_no_atomics_handle() { return handle(&bucket_scatter_no_atomics_kernel); }
const void* visited_bitmap_global_handle() { return handle(&visited_bitmap_global_kernel); }
const void* visited_bitmap_warp_merged_handle() { return handle(&visited_bitmap_warp_merged_kernel); }
const void* visited_bitmap_no_atomics_handle() { return handle(&visited_bitmap_no_atomics_kernel); }

}  // namespace atomq::validation::kernels
