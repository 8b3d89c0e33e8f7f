// The enqueue functions of kVariantPolicies (one a variant) and unsupported_reason, which reads
// the same table.
#include <limits>
#include <string>

#include "atomq/histogram/histogram.hpp"
#include "hist_kernels.cuh"
#include "histogram_cub.hpp"
#include "variant_launcher.hpp"

namespace atomq::histogram {

namespace detail {

void enqueue_naive_global(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_naive_global_handle(l.sample_bytes()));
}
void enqueue_block_private(VariantLauncher& l) {
  l.launch_one_sample_per_thread(kernels::hist_block_private_handle(l.sample_bytes()));
}
void enqueue_block_grid_stride(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_block_grid_stride_handle(l.sample_bytes()));
}
void enqueue_warp_replicated(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_warp_replicated_handle(l.sample_bytes()));
}
void enqueue_lane_replicated(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_lane_replicated_handle(l.sample_bytes(), l.bins()));
}
void enqueue_two_phase(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_two_phase_handle(l.sample_bytes()));
}
void enqueue_warp_aggregated(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_warp_aggregated_handle(l.sample_bytes()));
}
void enqueue_sort_run_length(VariantLauncher& l) {
  const LaunchInput& in = l.input();
  sort_run_length_histogram(l.cub(), in.samples, in.n, in.type, in.bins, in.counts, 0);
}
void enqueue_many_bins(VariantLauncher& l) {
  l.launch_split_bins(kernels::hist_many_bins_cluster_handle(l.sample_bytes(), shared::split_ranks(l.input().bins) == 1));
}
void enqueue_many_bins_packed(VariantLauncher& l) {
  // kSamplesPerRound samples per thread per round: no more clusters than the input keeps busy.
  constexpr std::size_t kPerRound = policy::ManyBinsPacked::kSamplesPerRound;
  l.launch_best_fit_clusters(kernels::hist_many_bins_packed_handle(),
                             static_cast<unsigned int>(shared::packed_words(l.input().bins)),
                             (l.input().n + kPerRound - 1) / kPerRound);
}
void enqueue_image_plain(VariantLauncher& l) { l.launch_grid_stride(kernels::hist_image_handle(false)); }
void enqueue_image_interleaved(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_image_handle(true));
}
void enqueue_image_lane_replicated(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_image_lane_replicated_handle(l.bins()));
}
void enqueue_rank_shared(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_rank_handle(l.sample_bytes(), false));
}
void enqueue_rank_lane_replicated(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_rank_handle(l.sample_bytes(), true));
}
void enqueue_cub(VariantLauncher& l) {
  const LaunchInput& in = l.input();
  cub_histogram(l.cub(), in.samples, in.n, in.type, in.bins, in.counts, 0);
}
void enqueue_scatter_add_global(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_scatter_add_global_handle(l.sample_bytes()));
}
void enqueue_scatter_add_private(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_scatter_add_private_handle(l.sample_bytes()));
}
void enqueue_block_u64(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_block_u64_handle(l.sample_bytes()));
}
void enqueue_scatter_add_private_int(VariantLauncher& l) {
  l.launch_grid_stride(kernels::hist_scatter_add_private_int_handle(l.sample_bytes()));
}

}  // namespace detail

namespace {

constexpr std::size_t kMaxSamples = std::numeric_limits<std::uint32_t>::max();  // no bin wraps
constexpr std::size_t kMaxIntSamples = std::numeric_limits<int>::max();
constexpr std::size_t kMaxExactFloatSum = std::size_t{1} << 24;  // unit float sums stay exact

// "image_plain, image_interleaved, ...": the variants that take sample type t, in table order.
std::string variants_taking(SampleType t) {
  std::string out;
  for (const VariantPolicy& p : kVariantPolicies)
    if (takes(p, t)) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

std::string type_refusal(const VariantPolicy& p, SampleType t) {
  const std::string name(p.name);
  if (t == SampleType::kRgba8)
    return name + " takes u32/u8 samples; 4-channel images run " + variants_taking(SampleType::kRgba8);
  if (p.types == kTakesRgba8) return name + " needs --type rgba8";
  return name + " takes u32 samples" + std::string(p.types_hint);
}

}  // namespace

std::string case_error(SampleType t, int bins) {
  if (bins < 1 || bins > kMaxBins) return "bins must be in 1.." + std::to_string(kMaxBins);
  if (t != SampleType::kU32 && bins > 256) return "8-bit samples have at most 256 distinct bins";
  return {};
}

std::string unsupported_reason(HistVariant v, SampleType t, int bins, std::size_t n) {
  const VariantPolicy& p = policy_of(v);
  const std::string name(p.name);
  if (std::string why = case_error(t, bins); !why.empty()) return why;
  if (n > kMaxSamples)
    return "n = " + std::to_string(n) +
           " reaches 2^32: a 32-bit bin could wrap (counters are 32-bit; split the input)";
  const bool other_type_family = (t == SampleType::kRgba8) != takes(p, SampleType::kRgba8) &&
                                 p.types != kTakesAll;
  if (other_type_family) return type_refusal(p, t);
  if (p.float_sums && n > kMaxExactFloatSum)
    return name + " sums floats: n <= 2^24 keeps every bin's sum exact (split the input)";
  if (p.passes_n_as_int && n > kMaxIntSamples) return name + " passes n to CUB as int: n must be < 2^31";
  if (!takes(p, t)) return type_refusal(p, t);
  if (bins > p.bins.max)
    return name + " " + std::string(p.bins.why) + ": bins <= " + std::to_string(p.bins.max) +
           std::string(p.bins.hint);
  return {};
}

}  // namespace atomq::histogram
