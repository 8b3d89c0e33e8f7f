// Histogram target kernels (one __global__ per hist_*.cu file) and their host-side handles.
// Every kernel takes one HistArgs by value; launch logic lives in src/variant_launcher.cpp
// and src/variant_enqueue.cpp.
#pragma once

#include <cstdint>

#include "atomq/histogram/variant_policy.hpp"

namespace atomq::histogram::kernels {

struct HistArgs {
  const void* samples;     // uint8 or uint32 samples, or uchar4 pixels
  unsigned long long n;    // samples (pixels for images)
  unsigned int bins;       // per histogram
  unsigned int aux;        // kernel-specific: log2(bins per cluster rank) for the many-bins kernel
  unsigned int* counts;    // global result, zeroed before the launch
};

// Input generation (see hist_generate.cu): writes `count` elements of `element_bytes` bytes.
struct GenerateArgs {
  void* out;
  unsigned long long count;      // elements (bytes for uint8 and images)
  int element_bytes;             // 1 or 4
  int channels;                  // 4 for images (element i belongs to channel i % 4), else 1
  int kind;                      // InputKind as int
  unsigned int bins;
  double hot_fraction;
  unsigned int fixed_value[4];   // hot bin / single value, per channel
  const double* zipf_cdf;        // bins entries, last == 1
  const unsigned int* rank_to_bin;
  unsigned long long seed;
};

// sample_bytes: 1 (uint8) or 4 (uint32). nullptr for a combination that does not exist.
const void* hist_naive_global_handle(int sample_bytes);
const void* hist_block_private_handle(int sample_bytes);
const void* hist_block_grid_stride_handle(int sample_bytes);
const void* hist_warp_replicated_handle(int sample_bytes);
const void* hist_lane_replicated_handle(int sample_bytes, unsigned int bins);
const void* hist_rank_handle(int sample_bytes, bool lane_copies);
const void* hist_two_phase_handle(int sample_bytes);
const void* hist_warp_aggregated_handle(int sample_bytes);
const void* hist_many_bins_cluster_handle(int sample_bytes, bool one_slice);  // one_slice: bins fit one block
const void* hist_many_bins_packed_handle();  // uint32 samples, a cluster
const void* hist_image_handle(bool interleave_channels);
const void* hist_image_lane_replicated_handle(unsigned int bins);  // 4 x bins x 32 words
// Float sums in HistArgs::counts (scatter-add of unit values).
const void* hist_scatter_add_global_handle(int sample_bytes);
const void* hist_scatter_add_private_handle(int sample_bytes);
const void* hist_block_u64_handle(int sample_bytes);
const void* hist_scatter_add_private_int_handle(int sample_bytes);
const void* hist_generate_handle();
// scatter_runs(const T* keys, const unsigned* run_counts, const int* run_count, bins, counts)
const void* hist_scatter_runs_handle(int sample_bytes);
// read_bandwidth(const uint4* data, unsigned long long vectors, unsigned sentinel, unsigned* sink)
const void* hist_read_bandwidth_handle();

// The handle of kernel<std::uint8_t> (sample_bytes 1) or kernel<std::uint32_t> (4), else nullptr:
//   by_sample_bytes(b, [](auto t) { return handle(&my_kernel<decltype(t)>); })
template <typename Pick>
const void* by_sample_bytes(int sample_bytes, Pick pick) {
  if (sample_bytes == 1) return pick(std::uint8_t{});
  if (sample_bytes == 4) return pick(std::uint32_t{});
  return nullptr;
}

template <typename Kernel>
const void* handle(Kernel* kernel) {
  return reinterpret_cast<const void*>(kernel);
}

}  // namespace atomq::histogram::kernels
