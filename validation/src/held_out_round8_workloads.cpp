// Held-out round 8: 15-bit pixel histograms of a smooth image (neighbouring pixels share bins) and
// of a noisy one; their inputs from fixed seeds and exact CPU references.
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

#include "held_out_round8.cuh"
#include "held_out_workloads.hpp"
#include "inputs.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kPixelHistKernels[] = {
    {"global_atomics", &k::pixel_hist_global_handle, 256},
    {"warp_merged", &k::pixel_hist_warp_merged_handle, 256},
    {"block_private", &k::pixel_hist_block_private_handle, 1024},
    {"no_atomics", &k::pixel_hist_no_atomics_handle, 256},
};

class PixelHistWorkload : public Workload {
 public:
  explicit PixelHistWorkload(const std::vector<std::uint32_t>& pixels)
      : n_(pixels.size()), expected_(count_ids(pixels, k::kPixelBins)) {
    args_ = {upload(pixels_, pixels), n_, counts_.reserve_for<std::uint32_t>(k::kPixelBins),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, k::kPixelBins * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kPixelHistKernels, std::size(kPixelHistKernels), variant);
    const std::size_t shared = variant == "block_private" ? k::kPixelBins * sizeof(std::uint32_t) : 0;
    launch_persistent(c.kernel(), c.threads, shared, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, k::kPixelBins), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer pixels_, counts_, sink_;
  k::PixelHistArgs args_{};
};

// A smooth image: intensity (7x + 131y) / 16 plus a random 0 or 1, wrapped to 15 bits, so a
// warp's 32 pixels of a row fall on about 15 neighbouring bins.
std::vector<std::uint32_t> smooth_image(std::size_t pixels, std::uint32_t width, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> out(pixels);
  for (std::size_t i = 0; i < pixels; ++i) {
    const std::uint64_t x = i % width, y = i / width;
    out[i] = static_cast<std::uint32_t>(((7 * x + 131 * y) / 16 + (rng() & 1u)) & (k::kPixelBins - 1u));
  }
  return out;
}

}  // namespace

std::unique_ptr<Workload> make_smooth_pixel_hist_workload(std::size_t pixels, std::uint32_t width, std::uint64_t seed) {
  if (pixels == 0 || width == 0) throw std::invalid_argument("smooth_pixel_hist: at least one pixel and one column");
  return std::make_unique<PixelHistWorkload>(smooth_image(pixels, width, seed));
}

std::unique_ptr<Workload> make_noisy_pixel_hist_workload(std::size_t pixels, std::uint64_t seed) {
  if (pixels == 0) throw std::invalid_argument("noisy_pixel_hist: at least one pixel");
  return std::make_unique<PixelHistWorkload>(uniform_values(pixels, k::kPixelBins, seed));
}

}  // namespace atomq::validation
