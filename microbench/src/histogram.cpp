// Launch logic of the histogram targets: case validation, input generation, grid sizing,
// timing with CUDA events, and the CPU reference.
#include "atomq/microbench/histogram.hpp"

#include <cuda_runtime_api.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

#include "atomq/cuda_check.hpp"
#include "hist_kernels.cuh"
#include "histogram_cub.hpp"

namespace atomq::microbench {

namespace {

constexpr std::size_t kMaxSamples = std::numeric_limits<std::uint32_t>::max();  // no bin wraps
constexpr std::size_t kMaxCubSamples = std::numeric_limits<int>::max();
constexpr int kMaxBins = 1 << 17;
constexpr int kMaxSharedBins = 32768;       // 128 KB of 32-bit counters in one block
constexpr int kMaxReplicatedBins = 1024;    // 16 warp copies / 32 lane copies stay <= 128 KB
constexpr int kMaxClusterRanks = 8;         // portable cluster size
constexpr int kClusterSliceLog2Max = 14;    // 16384 bins (64 KB) per cluster rank
constexpr int kMaxPackedBins = 65536;       // 16-bit counter pairs: 128 KB in one block
constexpr int kMaxClusterRanksNonPortable = 16;  // the largest cluster tried where allowed
constexpr std::size_t kAlignment = 256;

const std::map<HistVariant, std::string>& variant_names() {
  static const std::map<HistVariant, std::string> names = {
      {HistVariant::kNaiveGlobal, "naive_global"},
      {HistVariant::kBlockPrivate, "block_private"},
      {HistVariant::kBlockGridStride, "block_grid_stride"},
      {HistVariant::kWarpReplicated, "warp_replicated"},
      {HistVariant::kLaneReplicated, "lane_replicated"},
      {HistVariant::kTwoPhase, "two_phase"},
      {HistVariant::kWarpAggregated, "warp_aggregated"},
      {HistVariant::kSortRunLength, "sort_rle"},
      {HistVariant::kManyBins, "many_bins"},
      {HistVariant::kManyBinsPacked, "many_bins_packed"},
      {HistVariant::kImagePlain, "image_plain"},
      {HistVariant::kImageInterleaved, "image_interleaved"},
      {HistVariant::kImageLaneReplicated, "image_lane_replicated"},
      {HistVariant::kRankShared, "rank_shared"},
      {HistVariant::kRankLaneReplicated, "rank_lane_replicated"},
      {HistVariant::kCub, "cub"},
  };
  return names;
}

int log2_ceil(unsigned int x) {
  int s = 0;
  while ((1u << s) < x) ++s;
  return s;
}

// Zipf CDF over ranks 1..bins and a seeded rank -> bin permutation (hot bins scattered).
void zipf_tables(int bins, double s, std::uint64_t seed, std::vector<double>& cdf,
                 std::vector<unsigned int>& rank_to_bin) {
  cdf.resize(bins);
  double total = 0.0;
  for (int r = 0; r < bins; ++r) total += 1.0 / std::pow(static_cast<double>(r + 1), s);
  double running = 0.0;
  for (int r = 0; r < bins; ++r) {
    running += 1.0 / std::pow(static_cast<double>(r + 1), s);
    cdf[r] = running / total;
  }
  cdf[bins - 1] = 1.0;  // u < 1 always finds a rank
  rank_to_bin.resize(bins);
  std::iota(rank_to_bin.begin(), rank_to_bin.end(), 0u);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 7);
  std::shuffle(rank_to_bin.begin(), rank_to_bin.end(), rng);
}

// A typed view of a grow-only device allocation (detail::DeviceScratch).
template <typename T>
struct DeviceArray {
  T* ptr = nullptr;
  void resize(std::size_t n) { ptr = static_cast<T*>(memory.reserve(n * sizeof(T))); }

 private:
  detail::DeviceScratch memory;
};

}  // namespace

std::string to_string(HistVariant v) { return variant_names().at(v); }

std::string to_string(SampleType t) {
  switch (t) {
    case SampleType::kU32: return "u32";
    case SampleType::kU8: return "u8";
    case SampleType::kRgba8: return "rgba8";
  }
  return "?";
}

std::string to_string(InputKind k) {
  switch (k) {
    case InputKind::kUniform: return "uniform";
    case InputKind::kZipf: return "zipf";
    case InputKind::kHotFraction: return "hot";
    case InputKind::kSingleValue: return "single";
  }
  return "?";
}

std::string describe(const InputSpec& in) {
  char buf[64];
  switch (in.kind) {
    case InputKind::kZipf: std::snprintf(buf, sizeof buf, "zipf(s=%g)", in.zipf_s); return buf;
    case InputKind::kHotFraction:
      std::snprintf(buf, sizeof buf, "hot(%g%%)", in.hot_fraction * 100.0);
      return buf;
    default: return to_string(in.kind);
  }
}

std::optional<HistVariant> parse_variant(const std::string& s) {
  for (const auto& [v, name] : variant_names())
    if (name == s) return v;
  return std::nullopt;
}

std::optional<SampleType> parse_sample_type(const std::string& s) {
  if (s == "u32" || s == "uint32") return SampleType::kU32;
  if (s == "u8" || s == "uint8") return SampleType::kU8;
  if (s == "rgba8" || s == "image") return SampleType::kRgba8;
  return std::nullopt;
}

std::optional<InputKind> parse_input_kind(const std::string& s) {
  if (s == "uniform" || s == "random" || s == "random-colour") return InputKind::kUniform;
  if (s == "zipf") return InputKind::kZipf;
  if (s == "hot") return InputKind::kHotFraction;
  if (s == "single" || s == "single-colour") return InputKind::kSingleValue;
  return std::nullopt;
}

const std::vector<HistVariant>& all_variants() {
  static const std::vector<HistVariant> v = [] {
    std::vector<HistVariant> out;
    for (const auto& [variant, name] : variant_names()) out.push_back(variant);
    return out;
  }();
  return v;
}

std::size_t sample_bytes(SampleType t) { return t == SampleType::kU8 ? 1 : 4; }
int histogram_count(SampleType t) { return t == SampleType::kRgba8 ? 4 : 1; }

namespace {

// What makes a case impossible for every variant (empty when none).
std::string case_error(SampleType t, int bins) {
  if (bins < 1 || bins > kMaxBins) return "bins must be in 1.." + std::to_string(kMaxBins);
  if (t != SampleType::kU32 && bins > 256) return "8-bit samples have at most 256 distinct bins";
  return {};
}

}  // namespace

std::string unsupported_reason(HistVariant v, SampleType t, int bins, std::size_t n) {
  const std::string name = to_string(v);
  if (std::string why = case_error(t, bins); !why.empty()) return why;
  if (n > kMaxSamples)
    return "n = " + std::to_string(n) +
           " reaches 2^32: a 32-bit bin could wrap (counters are 32-bit; split the input)";
  const bool image_variant = v == HistVariant::kImagePlain || v == HistVariant::kImageInterleaved ||
                             v == HistVariant::kImageLaneReplicated;
  if (t == SampleType::kRgba8 && !image_variant && v != HistVariant::kCub)
    return name + " takes u32/u8 samples; 4-channel images run image_plain, image_interleaved, "
                  "image_lane_replicated, cub";
  if (t != SampleType::kRgba8 && image_variant) return name + " needs --type rgba8";
  if ((v == HistVariant::kCub || v == HistVariant::kSortRunLength) && n > kMaxCubSamples)
    return name + " passes n to CUB as int: n must be < 2^31";
  switch (v) {
    case HistVariant::kBlockPrivate:
    case HistVariant::kBlockGridStride:
    case HistVariant::kWarpAggregated:
    case HistVariant::kRankShared:
      if (bins > kMaxSharedBins)
        return name + " keeps one shared histogram per block: bins <= " +
               std::to_string(kMaxSharedBins) + " (use many_bins)";
      break;
    case HistVariant::kWarpReplicated:
    case HistVariant::kLaneReplicated:
    case HistVariant::kRankLaneReplicated:
      if (bins > kMaxReplicatedBins)
        return name + " replicates the histogram in shared memory: bins <= " +
               std::to_string(kMaxReplicatedBins) + " (use many_bins)";
      break;
    case HistVariant::kManyBinsPacked:
      if (t != SampleType::kU32) return name + " takes u32 samples (8-bit samples fit lane_replicated)";
      if (bins > kMaxPackedBins)
        return name + " packs two 16-bit counters per shared word: bins <= " +
               std::to_string(kMaxPackedBins) + " (use many_bins)";
      break;
    case HistVariant::kImageLaneReplicated:
      if (bins > kMaxReplicatedBins / 4)
        return name + " replicates four channel histograms in shared memory: bins <= " +
               std::to_string(kMaxReplicatedBins / 4);
      break;
    case HistVariant::kTwoPhase:
      if (bins > kernels::kTwoPhaseMaxBins)
        return name + " keeps a per-thread array: bins <= " +
               std::to_string(kernels::kTwoPhaseMaxBins);
      break;
    default:
      break;
  }
  return {};
}

std::vector<std::uint64_t> reference_histogram(const void* samples, std::size_t n, SampleType t,
                                               int bins) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(histogram_count(t)) * bins, 0);
  const auto ubins = static_cast<std::uint32_t>(bins);
  if (t == SampleType::kU32) {
    const auto* s = static_cast<const std::uint32_t*>(samples);
    for (std::size_t i = 0; i < n; ++i)
      if (s[i] < ubins) ++counts[s[i]];
  } else if (t == SampleType::kU8) {
    const auto* s = static_cast<const std::uint8_t*>(samples);
    for (std::size_t i = 0; i < n; ++i)
      if (s[i] < ubins) ++counts[s[i]];
  } else {
    const auto* s = static_cast<const std::uint8_t*>(samples);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < 4; ++c) {
        const std::uint8_t v = s[4 * i + c];
        if (v < ubins) ++counts[c * bins + v];
      }
  }
  return counts;
}

namespace {

struct ClusterShape {
  int ranks = 0;            // blocks per cluster; 0: no cluster of this kernel fits
  int resident_blocks = 0;  // blocks of that shape resident at once on the device
};

}  // namespace

struct HistogramRunner::Impl {
  cudaDeviceProp props{};
  int driver_version = 0;
  int runtime_version = 0;
  HistCase prepared;
  bool has_input = false;
  DeviceArray<std::uint8_t> raw;  // samples start kAlignment-aligned + misalign
  DeviceArray<unsigned int> counts;
  DeviceArray<double> zipf_cdf;
  DeviceArray<unsigned int> rank_to_bin;
  DeviceArray<unsigned int> sink;
  // Host-mapped words for hist_stream_hold_kernel: [0] release (host writes), [1] timed out.
  volatile int* hold_words = nullptr;
  int* hold_words_device = nullptr;  // the same words as the device addresses them
  bool warned_hold_timeout = false;
  detail::CubScratch cub;
  std::map<const void*, int> shared_limit_set;
  std::map<std::tuple<const void*, int, std::size_t>, ClusterShape> cluster_cache;
  cudaEvent_t start = nullptr, stop = nullptr;

  const void* samples() const {
    return raw.ptr + prepared.misalign_elements * sample_bytes(prepared.type);
  }
  std::size_t input_bytes() const { return prepared.n * sample_bytes(prepared.type); }

  double time_once(const std::function<void()>& enqueue_work);
  // `runs` timed runs of v after a warm-up; with_input_read: each preceded by a timed input read.
  PairedTiming time_runs(HistVariant v, int runs, bool with_input_read);

  // The read-bandwidth probe over this very input (its whole 16-byte vectors from the first
  // aligned address): the reference a histogram of this input is measured against.
  void enqueue_input_read() {
    const auto base = reinterpret_cast<std::uintptr_t>(samples());
    const std::uintptr_t aligned = (base + 15) & ~std::uintptr_t{15};
    const std::size_t skipped = aligned - base;
    const std::size_t bytes = input_bytes();
    if (bytes <= skipped + 16) return;
    launch_read_probe(reinterpret_cast<const void*>(aligned), (bytes - skipped) / 16);
  }

  // Reads `vectors` 16-byte vectors from a 16-byte-aligned `data`, one resident wave of blocks.
  void launch_read_probe(const void* data, unsigned long long vectors) {
    unsigned int sentinel = 0x9E3779B9u;
    unsigned int* sink_ptr = sink.ptr;
    void* params[] = {&data, &vectors, &sentinel, &sink_ptr};
    const void* kernel = kernels::hist_read_bandwidth_handle();
    int per_sm = 0;
    ATOMQ_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 512, 0));
    const int blocks = std::max(1, per_sm) * props.multiProcessorCount;
    ATOMQ_CUDA(cudaLaunchKernel(kernel, dim3(blocks), dim3(512), params, 0, 0));
    ATOMQ_CUDA_LAUNCH();
  }

  void allow_shared(const void* kernel, std::size_t bytes) {
    int& set = shared_limit_set[kernel];
    if (static_cast<int>(bytes) <= set || bytes <= 48 * 1024) return;
    ATOMQ_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
    set = static_cast<int>(bytes);
  }

  // A resident wave of blocks, but no more blocks than there are threads' worth of samples.
  int resident_grid(const void* kernel, int threads, std::size_t shared_bytes,
                    std::size_t work_items) {
    int per_sm = 0;
    ATOMQ_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                             shared_bytes));
    if (per_sm < 1) per_sm = 1;
    const std::size_t wave = static_cast<std::size_t>(per_sm) * props.multiProcessorCount;
    const std::size_t needed = std::max<std::size_t>(1, (work_items + threads - 1) / threads);
    return static_cast<int>(std::min(wave, needed));
  }

  // Launches a histogram kernel, as a cluster of `cluster_ranks` blocks when that is not 0.
  void launch(const void* kernel, int blocks, int threads, std::size_t shared_bytes,
              kernels::HistArgs args, int cluster_ranks = 0) {
    allow_shared(kernel, shared_bytes);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = 0;
    cudaLaunchAttribute cluster{};
    if (cluster_ranks > 0) {
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = static_cast<unsigned int>(cluster_ranks);
      cluster.val.clusterDim.y = 1;
      cluster.val.clusterDim.z = 1;
      config.attrs = &cluster;
      config.numAttrs = 1;
    }
    void* params[] = {&args};
    ATOMQ_CUDA(cudaLaunchKernelExC(&config, kernel, params));
    ATOMQ_CUDA_LAUNCH();
  }

  void launch_grid_stride(const void* kernel, int threads, std::size_t shared_bytes,
                          const kernels::HistArgs& args) {
    allow_shared(kernel, shared_bytes);  // before the occupancy query, which depends on it
    const int blocks = resident_grid(kernel, threads, shared_bytes, prepared.n);
    launch(kernel, blocks, threads, shared_bytes, args);
  }

  void launch_many_bins(const kernels::HistArgs& base) {
    const auto bins = static_cast<unsigned int>(prepared.bins);
    int slice_log2 = log2_ceil(bins);
    int ranks = 1;
    while (slice_log2 > kClusterSliceLog2Max && ranks < kMaxClusterRanks) {
      --slice_log2;
      ranks *= 2;
    }
    kernels::HistArgs args = base;
    args.aux = static_cast<unsigned int>(slice_log2);
    const std::size_t shared_bytes = sizeof(unsigned int) << slice_log2;
    const void* kernel = kernels::hist_many_bins_cluster_handle(static_cast<int>(sample_bytes(prepared.type)));
    allow_shared(kernel, shared_bytes);
    const int threads = 512;
    int blocks = resident_grid(kernel, threads, shared_bytes, prepared.n);
    blocks = std::max(ranks, blocks / ranks * ranks);  // the grid is whole clusters

    launch(kernel, blocks, threads, shared_bytes, args, ranks);
    spdlog::debug("many_bins: {} bins as {} cluster ranks of {} bins, {} blocks", bins, ranks,
                  1u << slice_log2, blocks);
  }

  // The cluster size that keeps the most blocks resident (the larger on a tie: fewer global
  // updates when the cluster sums its blocks' histograms). Sizes above 8 are non-portable;
  // they are tried only where the kernel may use them.
  ClusterShape best_cluster(const void* kernel, int threads, std::size_t shared_bytes) {
    const auto key = std::make_tuple(kernel, threads, shared_bytes);
    if (auto it = cluster_cache.find(key); it != cluster_cache.end()) return it->second;
    ClusterShape best;
    for (int ranks = kMaxClusterRanksNonPortable; ranks >= 1; ranks /= 2) {
      if (ranks > kMaxClusterRanks &&
          cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(ranks);
      config.blockDim = dim3(threads);
      config.dynamicSmemBytes = shared_bytes;
      cudaLaunchAttribute attribute{};
      attribute.id = cudaLaunchAttributeClusterDimension;
      attribute.val.clusterDim.x = static_cast<unsigned int>(ranks);
      attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
      config.attrs = &attribute;
      config.numAttrs = 1;
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      if (clusters * ranks > best.resident_blocks) best = {ranks, clusters * ranks};
    }
    spdlog::debug("clusters of {} blocks of {} threads, {} B shared: {} blocks resident", best.ranks,
                  threads, shared_bytes, best.resident_blocks);
    cluster_cache[key] = best;
    return best;
  }

  // A kernel whose blocks work as clusters: whole clusters, one resident wave, no more blocks
  // than `work_items` / threads.
  void launch_clustered(const void* kernel, int threads, std::size_t shared_bytes,
                        const kernels::HistArgs& args, std::size_t work_items) {
    allow_shared(kernel, shared_bytes);
    const ClusterShape shape = best_cluster(kernel, threads, shared_bytes);
    if (shape.ranks == 0)
      throw HistogramError("this device cannot keep one cluster of the kernel's blocks resident");
    const std::size_t needed = (work_items + threads - 1) / threads;
    const std::size_t clusters = std::max<std::size_t>(
        1, std::min<std::size_t>(shape.resident_blocks / shape.ranks, (needed + shape.ranks - 1) / shape.ranks));
    launch(kernel, static_cast<int>(clusters) * shape.ranks, threads, shared_bytes, args, shape.ranks);
  }

  void launch_many_bins_packed(const kernels::HistArgs& base) {
    const void* kernel = kernels::hist_many_bins_packed_handle();
    const std::size_t pair_words = (static_cast<std::size_t>(prepared.bins) + 1) / 2;
    // Whole 16-byte vectors for every rank of the largest cluster.
    const std::size_t unit = 4 * kMaxClusterRanksNonPortable;
    const std::size_t words = (pair_words + unit - 1) / unit * unit;
    const std::size_t shared_bytes = words * sizeof(unsigned int);
    kernels::HistArgs args = base;
    args.aux = static_cast<unsigned int>(words);
    // 8 samples per thread per round: no more clusters than the input keeps busy.
    launch_clustered(kernel, kernels::kPackedThreads, shared_bytes, args,
                     (prepared.n + kernels::kPackedSamplesPerRound - 1) / kernels::kPackedSamplesPerRound);
  }

  void enqueue(HistVariant v) {
    const std::string why = unsupported_reason(v, prepared.type, prepared.bins, prepared.n);
    if (!why.empty()) throw HistogramError(why);
    const SampleType type = prepared.type;
    const int bins = prepared.bins;
    const std::size_t count_words = static_cast<std::size_t>(histogram_count(type)) * bins;
    if (v == HistVariant::kCub) {
      if (prepared.n == 0) {
        ATOMQ_CUDA(cudaMemsetAsync(counts.ptr, 0, count_words * sizeof(unsigned int), 0));
        return;
      }
      detail::cub_histogram(cub, samples(), prepared.n, type, bins, counts.ptr, 0);
      return;
    }
    ATOMQ_CUDA(cudaMemsetAsync(counts.ptr, 0, count_words * sizeof(unsigned int), 0));
    if (prepared.n == 0) return;

    const int bytes = static_cast<int>(sample_bytes(type));
    kernels::HistArgs args{samples(), prepared.n, static_cast<unsigned int>(bins), 0u, counts.ptr};
    const std::size_t hist_bytes = sizeof(unsigned int) * bins;
    switch (v) {
      case HistVariant::kNaiveGlobal:
        launch_grid_stride(kernels::hist_naive_global_handle(bytes), 256, 0, args);
        return;
      case HistVariant::kBlockPrivate: {
        const std::size_t blocks = (prepared.n + 255) / 256;
        launch(kernels::hist_block_private_handle(bytes), static_cast<int>(blocks), 256,
               hist_bytes, args);
        return;
      }
      case HistVariant::kBlockGridStride:
        launch_grid_stride(kernels::hist_block_grid_stride_handle(bytes), 512, hist_bytes, args);
        return;
      case HistVariant::kWarpReplicated:
        launch_grid_stride(kernels::hist_warp_replicated_handle(bytes), 512,
                           sizeof(unsigned int) * 16 * (bins + 1), args);
        return;
      case HistVariant::kLaneReplicated:
        launch_grid_stride(kernels::hist_lane_replicated_handle(bytes, static_cast<unsigned int>(bins)), 512,
                           32 * hist_bytes, args);
        return;
      case HistVariant::kTwoPhase:
        launch_grid_stride(kernels::hist_two_phase_handle(bytes), 256, 0, args);
        return;
      case HistVariant::kWarpAggregated:
        launch_grid_stride(kernels::hist_warp_aggregated_handle(bytes), 512, hist_bytes, args);
        return;
      case HistVariant::kSortRunLength:
        detail::sort_run_length_histogram(cub, samples(), prepared.n, type, bins, counts.ptr, 0);
        return;
      case HistVariant::kManyBins:
        launch_many_bins(args);
        return;
      case HistVariant::kManyBinsPacked:
        launch_many_bins_packed(args);
        return;
      case HistVariant::kImagePlain:
      case HistVariant::kImageInterleaved:
        launch_grid_stride(kernels::hist_image_handle(v == HistVariant::kImageInterleaved), 512,
                           4 * hist_bytes, args);
        return;
      case HistVariant::kImageLaneReplicated:
        launch_grid_stride(kernels::hist_image_lane_replicated_handle(static_cast<unsigned int>(bins)), 1024,
                           4 * 32 * hist_bytes, args);
        return;
      case HistVariant::kRankShared:
        launch_grid_stride(kernels::hist_rank_handle(bytes, false), 512, hist_bytes, args);
        return;
      case HistVariant::kRankLaneReplicated:
        launch_grid_stride(kernels::hist_rank_handle(bytes, true), 512, 32 * hist_bytes, args);
        return;
      case HistVariant::kCub:
        return;
    }
  }
};

HistogramRunner::HistogramRunner(int device) : impl_(std::make_unique<Impl>()) {
  ATOMQ_CUDA(cudaSetDevice(device));
  ATOMQ_CUDA(cudaGetDeviceProperties(&impl_->props, device));
  ATOMQ_CUDA(cudaDriverGetVersion(&impl_->driver_version));
  ATOMQ_CUDA(cudaRuntimeGetVersion(&impl_->runtime_version));
  ATOMQ_CUDA(cudaEventCreate(&impl_->start));
  ATOMQ_CUDA(cudaEventCreate(&impl_->stop));
  impl_->sink.resize(1 << 16);
  void* hold = nullptr;
  ATOMQ_CUDA(cudaHostAlloc(&hold, 2 * sizeof(int), cudaHostAllocMapped));
  impl_->hold_words = static_cast<volatile int*>(hold);
  ATOMQ_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&impl_->hold_words_device), hold, 0));
}

HistogramRunner::~HistogramRunner() {
  cudaFreeHost(const_cast<int*>(impl_->hold_words));
  cudaEventDestroy(impl_->start);
  cudaEventDestroy(impl_->stop);
}

void HistogramRunner::prepare(const HistCase& c) {
  if (const std::string why = case_error(c.type, c.bins); !why.empty()) throw HistogramError(why);
  if (c.misalign_elements < 0 || c.misalign_elements > 64)
    throw HistogramError("misalign_elements must be in 0..64");
  Impl& m = *impl_;
  m.prepared = c;
  const std::size_t element_bytes = c.type == SampleType::kU32 ? 4 : 1;
  const std::size_t elements = c.n * (c.type == SampleType::kRgba8 ? 4 : 1);
  m.raw.resize(kAlignment + elements * element_bytes + c.misalign_elements * sample_bytes(c.type));
  m.counts.resize(static_cast<std::size_t>(histogram_count(c.type)) * c.bins);
  m.has_input = true;
  if (elements == 0) return;

  kernels::GenerateArgs g{};
  g.out = const_cast<void*>(m.samples());
  g.count = elements;
  g.element_bytes = static_cast<int>(element_bytes);
  g.channels = c.type == SampleType::kRgba8 ? 4 : 1;
  g.kind = static_cast<int>(c.input.kind);
  g.bins = static_cast<unsigned int>(c.bins);
  g.hot_fraction = c.input.hot_fraction;
  std::mt19937_64 rng(c.input.seed);
  for (unsigned int& v : g.fixed_value) v = static_cast<unsigned int>(rng() % c.bins);
  g.seed = rng();
  if (c.input.kind == InputKind::kZipf) {
    std::vector<double> cdf;
    std::vector<unsigned int> perm;
    zipf_tables(c.bins, c.input.zipf_s, c.input.seed, cdf, perm);
    m.zipf_cdf.resize(cdf.size());
    m.rank_to_bin.resize(perm.size());
    ATOMQ_CUDA(cudaMemcpy(m.zipf_cdf.ptr, cdf.data(), cdf.size() * sizeof(double),
                          cudaMemcpyHostToDevice));
    ATOMQ_CUDA(cudaMemcpy(m.rank_to_bin.ptr, perm.data(), perm.size() * sizeof(unsigned int),
                          cudaMemcpyHostToDevice));
    g.zipf_cdf = m.zipf_cdf.ptr;
    g.rank_to_bin = m.rank_to_bin.ptr;
  }
  void* params[] = {&g};
  const int blocks = m.props.multiProcessorCount * 8;
  ATOMQ_CUDA(cudaLaunchKernel(kernels::hist_generate_handle(), dim3(blocks), dim3(256), params, 0, 0));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaDeviceSynchronize());
  spdlog::debug("generated {} {} samples ({}), bins {}, seed {}", c.n, to_string(c.type),
                describe(c.input), c.bins, c.input.seed);
}

std::vector<std::uint8_t> HistogramRunner::download_samples() const {
  std::vector<std::uint8_t> host(impl_->input_bytes());
  if (!host.empty())
    ATOMQ_CUDA(cudaMemcpy(host.data(), impl_->samples(), host.size(), cudaMemcpyDeviceToHost));
  return host;
}

std::vector<std::uint64_t> HistogramRunner::reference() const {
  const std::vector<std::uint8_t> host = download_samples();
  return reference_histogram(host.data(), impl_->prepared.n, impl_->prepared.type,
                             impl_->prepared.bins);
}

HistRunResult HistogramRunner::run(HistVariant v) {
  if (!impl_->has_input) throw HistogramError("no input prepared");
  impl_->enqueue(v);
  ATOMQ_CUDA(cudaDeviceSynchronize());
  HistRunResult r;
  r.counts.resize(static_cast<std::size_t>(histogram_count(impl_->prepared.type)) *
                  impl_->prepared.bins);
  ATOMQ_CUDA(cudaMemcpy(r.counts.data(), impl_->counts.ptr, r.counts.size() * sizeof(unsigned int),
                        cudaMemcpyDeviceToHost));
  return r;
}

namespace {

HistTiming summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  HistTiming out;
  out.runs = static_cast<int>(ms.size());
  if (!ms.empty()) {
    out.min_ms = ms.front();
    out.max_ms = ms.back();
    out.median_ms = ms.size() % 2 ? ms[ms.size() / 2]
                                  : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
  }
  return out;
}

}  // namespace

// The stream is held while the start event, the work and the stop event are queued, then
// released: the time between the events is the device's alone (as nvbench measures), the same
// for the read probe and for every variant. Without the hold, the host's launch calls after the
// start event would be timed too, and weigh most on sequences of several launches.
double HistogramRunner::Impl::time_once(const std::function<void()>& enqueue_work) {
  hold_words[0] = 0;
  hold_words[1] = 0;
  const volatile int* release = hold_words_device;
  unsigned long long timeout_cycles = 2000000000ull;  // about a second
  int* timed_out = hold_words_device + 1;
  void* params[] = {&release, &timeout_cycles, &timed_out};
  ATOMQ_CUDA(cudaLaunchKernel(kernels::hist_stream_hold_handle(), dim3(1), dim3(1), params, 0, 0));
  ATOMQ_CUDA_LAUNCH();
  ATOMQ_CUDA(cudaEventRecord(start, 0));
  enqueue_work();
  ATOMQ_CUDA(cudaEventRecord(stop, 0));
  std::atomic_thread_fence(std::memory_order_seq_cst);
  hold_words[0] = 1;
  ATOMQ_CUDA(cudaEventSynchronize(stop));
  if (hold_words[1] != 0 && !warned_hold_timeout) {
    warned_hold_timeout = true;
    spdlog::warn("the stream hold timed out before the launches were queued: this timing includes host launch time");
  }
  float t = 0.0f;
  ATOMQ_CUDA(cudaEventElapsedTime(&t, start, stop));
  return t;
}

HistTiming HistogramRunner::time(HistVariant v, int runs) {
  return impl_->time_runs(v, runs, false).variant;
}

PairedTiming HistogramRunner::time_with_input_read(HistVariant v, int runs) {
  return impl_->time_runs(v, runs, true);
}

PairedTiming HistogramRunner::Impl::time_runs(HistVariant v, int runs, bool with_input_read) {
  if (!has_input) throw HistogramError("no input prepared");
  enqueue(v);  // warm-up: also grows any scratch buffer outside the timed runs
  if (with_input_read) enqueue_input_read();
  ATOMQ_CUDA(cudaDeviceSynchronize());
  std::vector<double> variant_ms, read_ms;
  for (int i = 0; i < runs; ++i) {
    if (with_input_read) read_ms.push_back(time_once([&] { enqueue_input_read(); }));
    variant_ms.push_back(time_once([&] { enqueue(v); }));
  }
  return {summarize(variant_ms), summarize(read_ms)};
}

double HistogramRunner::measure_read_bandwidth_gbs(std::size_t bytes, int runs) {
  Impl& m = *impl_;
  DeviceArray<std::uint8_t> buffer;
  const std::size_t vectors = bytes / 16;
  buffer.resize(vectors * 16);
  ATOMQ_CUDA(cudaMemset(buffer.ptr, 1, vectors * 16));
  auto read = [&] { m.launch_read_probe(buffer.ptr, vectors); };
  read();  // warm-up, outside the hold: a first launch may load the kernel's module
  ATOMQ_CUDA(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) ms.push_back(m.time_once(read));
  return static_cast<double>(vectors * 16) / (summarize(ms).median_ms * 1e-3) / 1e9;
}

std::string HistogramRunner::device_name() const { return impl_->props.name; }
int HistogramRunner::driver_version() const { return impl_->driver_version; }
int HistogramRunner::runtime_version() const { return impl_->runtime_version; }

}  // namespace atomq::microbench
