// The one table of histogram variants: for each, its command-line name, how it is launched,
// the block its kernel is compiled for, the shared memory it takes for a number of bins, the
// sample types and bins it accepts and whether it runs as thread-block clusters. The runner's
// dispatch, the CLI's variant list and unsupported_reason all read this table; nothing else
// lists the variants. Plain C++17 (no CUDA header): kernels, runner, CLI and tests include it.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "atomq/common/enum_names.hpp"

namespace atomq::histogram {

enum class HistVariant {
  kNaiveGlobal,        // one global atomicAdd per sample
  kBlockPrivate,       // shared histogram per block, one sample per thread
  kBlockGridStride,    // shared histogram per block, grid-stride loop
  kWarpReplicated,     // one padded sub-histogram per warp, 16-byte loads
  kLaneReplicated,     // 32 bank-aligned copies (copy = lane), 16-byte loads
  kTwoPhase,           // per-thread private histogram in local memory, merged once per thread
  kWarpAggregated,     // __match_any_sync: one atomic per distinct bin per warp
  kSortRunLength,      // CUB radix sort + run-length encode, then scatter
  kManyBins,           // bins split over a thread-block cluster (distributed shared memory)
  kManyBinsPacked,     // 16-bit counter pairs: 65536 bins in one block; cluster-summed flush
  kImagePlain,         // 4-channel image, every thread walks channels 0,1,2,3
  kImageInterleaved,   // 4-channel image, thread t starts at channel t % 4, so the four
                       // channels of a pixel go to four different lanes
  kImageLaneReplicated,// 4-channel image, 32 bank-aligned copies of the channel histograms
  kRankShared,         // counting-sort pass: rank = atomicAdd's old value (ATOMS.ADD), one shared copy
  kRankLaneReplicated, // the same with 32 bank-aligned copies (copy = lane): no two lanes share a word
  kCub,                // cub::DeviceHistogram (HistogramEven / MultiHistogramEven)
  kScatterAddGlobal,   // float atomicAdd of one value per sample into global bins
  kScatterAddPrivate,  // the same into a shared float copy per block, merged once per block
  kBlockU64,           // 64-bit shared counters: a CAS loop per update (fix: block_grid_stride)
  kScatterAddPrivateInt,  // scatter_add_private counting in unsigned int (its fix)
};

// Aliases follow the names: enum_name gives the first entry of a value, parse_enum takes any.
enum class SampleType { kU32, kU8, kRgba8 };
constexpr std::array<EnumName<SampleType>, 6> enum_names(SampleType) {
  return {{{SampleType::kU32, "u32"},
           {SampleType::kU8, "u8"},
           {SampleType::kRgba8, "rgba8"},
           {SampleType::kU32, "uint32"},
           {SampleType::kU8, "uint8"},
           {SampleType::kRgba8, "image"}}};
}

// Blocks of the kernels (tuning policies in the CUB manner): a kernel's __launch_bounds__ and
// the runner's launch of it read the same constants.
namespace policy {

inline constexpr int kPortableClusterRanks = 8;  // larger clusters need the kernel's opt-in

template <int Threads, int MinBlocksPerSm = 0>
struct Block {
  static constexpr int kThreads = Threads;
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm;  // 0: the kernel does not promise any
};
using NaiveGlobal = Block<256>;
using BlockPrivate = Block<256>;
using BlockGridStride = Block<512>;
using WarpReplicated = Block<512>;
using LaneReplicated = Block<512, 3>;
struct TwoPhase : Block<256> {
  static constexpr int kMaxBins = 256;  // the per-thread array
};
using WarpAggregated = Block<512>;
struct ManyBinsCluster : Block<512> {
  static constexpr int kMaxClusterRanks = kPortableClusterRanks;
  static constexpr int kSliceLog2Max = 14;        // 16384 bins (64 KB) per cluster rank
};
struct ManyBinsPacked : Block<1024, 1> {
  static constexpr unsigned int kSamplesPerRound = 16;  // uint32 samples a thread counts per round
  static constexpr int kMaxClusterRanks = 16;          // the largest cluster tried where allowed
};
using Image = Block<512>;
using ImageLaneReplicated = Block<1024, 1>;
using Rank = Block<512>;
using ScatterAddGlobal = Block<256>;
using ScatterAddPrivate = Block<512>;
using ReadProbe = Block<512>;  // the read-bandwidth probe (not a variant)

}  // namespace policy

namespace detail {
class VariantLauncher;  // the runner's launch helpers (src/variant_launcher.hpp)
}  // namespace detail

using EnqueueFn = void (*)(detail::VariantLauncher&);
using SharedBytesFn = std::size_t (*)(int bins);

// Sample types a variant takes.
enum SampleTypes : unsigned {
  kTakesU32 = 1u << static_cast<int>(SampleType::kU32),
  kTakesU8 = 1u << static_cast<int>(SampleType::kU8),
  kTakesRgba8 = 1u << static_cast<int>(SampleType::kRgba8),
  kTakesScalars = kTakesU32 | kTakesU8,
  kTakesAll = kTakesScalars | kTakesRgba8,
};

enum class ClusterUse {
  kNone,
  kSplitBins,  // ranks = what the bins need (bins / 2^kSliceLog2Max, up to kMaxClusterRanks)
  kBestFit,    // the size (up to kMaxClusterRanks) that keeps the most blocks resident
};

inline constexpr int kMaxBins = 1 << 17;
inline constexpr int kMaxSharedBins = 32768;     // 128 KB of 32-bit counters in one block
inline constexpr int kMaxReplicatedBins = 1024;  // 16 warp copies / 32 lane copies stay <= 128 KB
inline constexpr int kMaxPackedBins = 65536;     // 16-bit counter pairs: 128 KB in one block

struct BinLimit {
  int max = kMaxBins;
  std::string_view why;   // "keeps one shared histogram per block": the refusal says why
  std::string_view hint;  // appended to the refusal, e.g. " (use many_bins)"
};

struct VariantPolicy {
  HistVariant variant;
  std::string_view name;       // on the command line and in reports
  EnqueueFn enqueue;           // queues one run on the prepared input (counts already zeroed)
  int threads;                 // block of the kernel; 0: CUB chooses
  SharedBytesFn shared_bytes;  // dynamic shared memory per block for `bins`
  unsigned types;              // SampleTypes
  BinLimit bins;
  ClusterUse cluster = ClusterUse::kNone;
  bool passes_n_as_int = false;     // CUB: n must be < 2^31
  bool writes_every_count = false;  // no zeroing of the counts before it runs
  std::string_view types_hint;      // appended when a u32-only variant is given u8
  bool float_sums = false;          // accumulates float sums in the counts buffer (scatter-add)
};

// Shared memory of the variants, as a function of bins.
namespace shared {
constexpr std::size_t kWord = sizeof(unsigned int);
constexpr std::size_t none(int) { return 0; }
constexpr std::size_t one_copy(int bins) { return kWord * bins; }
constexpr std::size_t one_u64_copy(int bins) { return 2 * kWord * bins; }
constexpr std::size_t lane_copies(int bins) { return 32 * kWord * bins; }
constexpr std::size_t warp_copies(int bins) {  // one padded copy per warp
  return kWord * (policy::WarpReplicated::kThreads / 32) * (bins + 1);
}
constexpr std::size_t channel_copies(int bins) { return 4 * kWord * bins; }
constexpr std::size_t channel_lane_copies(int bins) { return 4 * 32 * kWord * bins; }
constexpr int log2_ceil(unsigned int x) {
  int s = 0;
  while ((1u << s) < x) ++s;
  return s;
}
// many_bins: log2 of the bins each cluster rank owns, and the ranks.
constexpr int split_slice_log2(int bins) {
  int slice_log2 = log2_ceil(static_cast<unsigned int>(bins));
  for (int ranks = 1; slice_log2 > policy::ManyBinsCluster::kSliceLog2Max &&
                      ranks < policy::ManyBinsCluster::kMaxClusterRanks;
       ranks *= 2)
    --slice_log2;
  return slice_log2;
}
constexpr int split_ranks(int bins) {
  return 1 << (log2_ceil(static_cast<unsigned int>(bins)) - split_slice_log2(bins));
}
// One slice of counters, then a spare 16 bytes: a sample outside the bins adds 1 to the spare
// word instead of skipping the atomic (hist_many_bins_cluster.cu says why).
constexpr std::size_t split_slice(int bins) { return (kWord << split_slice_log2(bins)) + 4 * kWord; }
// many_bins_packed: two 16-bit counters a word, rounded up to whole 16-byte vectors for every
// rank of the largest cluster.
constexpr std::size_t packed_words(int bins) {
  const std::size_t pair_words = (static_cast<std::size_t>(bins) + 1) / 2;
  const std::size_t unit = 4 * policy::ManyBinsPacked::kMaxClusterRanks;
  return (pair_words + unit - 1) / unit * unit;
}
constexpr std::size_t packed(int bins) { return kWord * packed_words(bins); }
}  // namespace shared

// The launch functions of the table (src/variant_enqueue.cpp).
namespace detail {
void enqueue_naive_global(VariantLauncher& l);
void enqueue_block_private(VariantLauncher& l);
void enqueue_block_grid_stride(VariantLauncher& l);
void enqueue_warp_replicated(VariantLauncher& l);
void enqueue_lane_replicated(VariantLauncher& l);
void enqueue_two_phase(VariantLauncher& l);
void enqueue_warp_aggregated(VariantLauncher& l);
void enqueue_sort_run_length(VariantLauncher& l);
void enqueue_many_bins(VariantLauncher& l);
void enqueue_many_bins_packed(VariantLauncher& l);
void enqueue_image_plain(VariantLauncher& l);
void enqueue_image_interleaved(VariantLauncher& l);
void enqueue_image_lane_replicated(VariantLauncher& l);
void enqueue_rank_shared(VariantLauncher& l);
void enqueue_rank_lane_replicated(VariantLauncher& l);
void enqueue_cub(VariantLauncher& l);
void enqueue_scatter_add_global(VariantLauncher& l);
void enqueue_scatter_add_private(VariantLauncher& l);
void enqueue_block_u64(VariantLauncher& l);
void enqueue_scatter_add_private_int(VariantLauncher& l);
}  // namespace detail

namespace table_limits {
inline constexpr BinLimit kShared{kMaxSharedBins, "keeps one shared histogram per block", " (use many_bins)"};
inline constexpr BinLimit kReplicated{kMaxReplicatedBins, "replicates the histogram in shared memory",
                                      " (use many_bins)"};
}  // namespace table_limits

// In HistVariant order: --help, `atomq hist --list` and the benchmark list them so.
inline constexpr std::array<VariantPolicy, 20> kVariantPolicies = {{
    {HistVariant::kNaiveGlobal, "naive_global", detail::enqueue_naive_global,
     policy::NaiveGlobal::kThreads, shared::none, kTakesScalars, {}},
    {HistVariant::kBlockPrivate, "block_private", detail::enqueue_block_private,
     policy::BlockPrivate::kThreads, shared::one_copy, kTakesScalars, table_limits::kShared},
    {HistVariant::kBlockGridStride, "block_grid_stride", detail::enqueue_block_grid_stride,
     policy::BlockGridStride::kThreads, shared::one_copy, kTakesScalars, table_limits::kShared},
    {HistVariant::kWarpReplicated, "warp_replicated", detail::enqueue_warp_replicated,
     policy::WarpReplicated::kThreads, shared::warp_copies, kTakesScalars, table_limits::kReplicated},
    {HistVariant::kLaneReplicated, "lane_replicated", detail::enqueue_lane_replicated,
     policy::LaneReplicated::kThreads, shared::lane_copies, kTakesScalars, table_limits::kReplicated},
    {HistVariant::kTwoPhase, "two_phase", detail::enqueue_two_phase, policy::TwoPhase::kThreads,
     shared::none, kTakesScalars, {policy::TwoPhase::kMaxBins, "keeps a per-thread array", ""}},
    {HistVariant::kWarpAggregated, "warp_aggregated", detail::enqueue_warp_aggregated,
     policy::WarpAggregated::kThreads, shared::one_copy, kTakesScalars, table_limits::kShared},
    {HistVariant::kSortRunLength, "sort_rle", detail::enqueue_sort_run_length, 0, shared::none,
     kTakesScalars, {}, ClusterUse::kNone, true},
    {HistVariant::kManyBins, "many_bins", detail::enqueue_many_bins, policy::ManyBinsCluster::kThreads,
     shared::split_slice, kTakesScalars, {}, ClusterUse::kSplitBins},
    {HistVariant::kManyBinsPacked, "many_bins_packed", detail::enqueue_many_bins_packed,
     policy::ManyBinsPacked::kThreads, shared::packed, kTakesU32,
     {kMaxPackedBins, "packs two 16-bit counters per shared word", " (use many_bins)"},
     ClusterUse::kBestFit, false, false, " (8-bit samples fit lane_replicated)"},
    {HistVariant::kImagePlain, "image_plain", detail::enqueue_image_plain, policy::Image::kThreads,
     shared::channel_copies, kTakesRgba8, {}},
    {HistVariant::kImageInterleaved, "image_interleaved", detail::enqueue_image_interleaved,
     policy::Image::kThreads, shared::channel_copies, kTakesRgba8, {}},
    {HistVariant::kImageLaneReplicated, "image_lane_replicated", detail::enqueue_image_lane_replicated,
     policy::ImageLaneReplicated::kThreads, shared::channel_lane_copies, kTakesRgba8,
     {kMaxReplicatedBins / 4, "replicates four channel histograms in shared memory", ""}},
    {HistVariant::kRankShared, "rank_shared", detail::enqueue_rank_shared, policy::Rank::kThreads,
     shared::one_copy, kTakesScalars, table_limits::kShared},
    {HistVariant::kRankLaneReplicated, "rank_lane_replicated", detail::enqueue_rank_lane_replicated,
     policy::Rank::kThreads, shared::lane_copies, kTakesScalars, table_limits::kReplicated},
    {HistVariant::kCub, "cub", detail::enqueue_cub, 0, shared::none, kTakesAll, {}, ClusterUse::kNone,
     true, true},
    {HistVariant::kScatterAddGlobal, "scatter_add_global", detail::enqueue_scatter_add_global,
     policy::ScatterAddGlobal::kThreads, shared::none, kTakesScalars, {}, ClusterUse::kNone, false,
     false, "", true},
    {HistVariant::kScatterAddPrivate, "scatter_add_private", detail::enqueue_scatter_add_private,
     policy::ScatterAddPrivate::kThreads, shared::one_copy, kTakesScalars, table_limits::kShared,
     ClusterUse::kNone, false, false, "", true},
    {HistVariant::kBlockU64, "block_u64", detail::enqueue_block_u64, policy::BlockGridStride::kThreads,
     shared::one_u64_copy, kTakesScalars,
     {kMaxSharedBins / 2, "keeps one 64-bit shared histogram per block", " (use many_bins)"}},
    {HistVariant::kScatterAddPrivateInt, "scatter_add_private_int", detail::enqueue_scatter_add_private_int,
     policy::ScatterAddPrivate::kThreads, shared::one_copy, kTakesScalars, table_limits::kShared,
     ClusterUse::kNone, false, false, "", true},
}};

constexpr std::array<EnumName<HistVariant>, kVariantPolicies.size()> enum_names(HistVariant) {
  std::array<EnumName<HistVariant>, kVariantPolicies.size()> names{};
  for (std::size_t i = 0; i < kVariantPolicies.size(); ++i)
    names[i] = {kVariantPolicies[i].variant, kVariantPolicies[i].name};
  return names;
}

// The row of v (the table is in HistVariant order).
constexpr const VariantPolicy& policy_of(HistVariant v) {
  return kVariantPolicies[static_cast<std::size_t>(v)];
}

constexpr bool takes(const VariantPolicy& p, SampleType t) {
  return (p.types & (1u << static_cast<int>(t))) != 0;
}

// The table is in enum order, so policy_of is an index.
constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < kVariantPolicies.size(); ++i)
    if (static_cast<std::size_t>(kVariantPolicies[i].variant) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "kVariantPolicies must list the variants in HistVariant order");

}  // namespace atomq::histogram
