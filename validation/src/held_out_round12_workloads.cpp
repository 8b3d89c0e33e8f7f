// Held-out round 12: the depth pass of a software rasterizer over overlapping rectangles and the
// absolute maximum of a tensor; their inputs from fixed seeds and exact CPU references.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

#include "held_out_round12.cuh"
#include "held_out_workloads.hpp"
#include "inputs.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

// Fragments of axis-aligned rectangles, each of one depth, emitted rectangle by rectangle in
// row-major order: sides uniform in [8, 40] pixels, centres normal around the frame's centre
// (sigma = width / 10), depths uniform below 2^30; the last rectangle cut at `n` fragments.
struct Fragments {
  std::vector<std::uint32_t> pixel, depth;
};

Fragments rectangle_fragments(std::size_t n, std::uint32_t width, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> side(8, 40);
  std::normal_distribution<double> centre(width / 2.0, width / 10.0);
  std::uniform_int_distribution<std::uint32_t> depth(0u, (1u << 30) - 1u);
  Fragments f;
  f.pixel.reserve(n);
  f.depth.reserve(n);
  const int w = static_cast<int>(width);
  while (f.pixel.size() < n) {
    const int rw = side(rng), rh = side(rng);
    const int x0 = std::clamp(static_cast<int>(std::lround(centre(rng))) - rw / 2, 0, w - rw);
    const int y0 = std::clamp(static_cast<int>(std::lround(centre(rng))) - rh / 2, 0, w - rh);
    const std::uint32_t z = depth(rng);
    for (int y = y0; y < y0 + rh && f.pixel.size() < n; ++y)
      for (int x = x0; x < x0 + rw && f.pixel.size() < n; ++x) {
        f.pixel.push_back(static_cast<std::uint32_t>(y) * width + static_cast<std::uint32_t>(x));
        f.depth.push_back(z);
      }
  }
  return f;
}

constexpr KernelChoice kDepthTestKernels[] = {
    {"atomic_min", &k::depth_test_atomic_min_handle, 256},
    {"early_test", &k::depth_test_early_test_handle, 256},
    {"no_atomics", &k::depth_test_no_atomics_handle, 256},
};

class DepthTestWorkload : public Workload {
 public:
  DepthTestWorkload(const Fragments& f, std::uint32_t width)
      : pixels_(static_cast<std::size_t>(width) * width), fragments_(f.pixel.size()), expected_(pixels_, 0xFFFFFFFFu) {
    for (std::size_t i = 0; i < fragments_; ++i) expected_[f.pixel[i]] = std::min(expected_[f.pixel[i]], f.depth[i]);
    args_ = {upload(pixel_, f.pixel), upload(depth_, f.depth), fragments_, zbuffer_.reserve_for<std::uint32_t>(pixels_),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.zbuffer, 0xFF, pixels_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kDepthTestKernels, std::size(kDepthTestKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.zbuffer, pixels_), expected_); }
  double useful_updates() const override { return static_cast<double>(fragments_); }

 private:
  std::size_t pixels_, fragments_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer pixel_, depth_, zbuffer_, sink_;
  k::DepthTestArgs args_{};
};

// Activations: normal with mean 0 and sigma 1, rounded to float.
std::vector<float> normal_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(g(rng));
  return v;
}

constexpr KernelChoice kAmaxKernels[] = {
    {"per_thread", &k::amax_per_thread_handle, 256},
    {"per_block", &k::amax_per_block_handle, 256},
    {"no_atomics", &k::amax_no_atomics_handle, 256},
};

class AmaxWorkload : public Workload {
 public:
  explicit AmaxWorkload(const std::vector<float>& x) : n_(x.size()), expected_(1, 0u) {
    for (float v : x) expected_[0] = std::max(expected_[0], float_bits(std::fabs(v)));
    args_ = {upload(x_, x), n_, amax_.reserve_for<std::uint32_t>(1), sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.amax, 0, sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kAmaxKernels, std::size(kAmaxKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.amax, 1), expected_); }
  // No hint: the atomics are one per thread of the launch, not one per value (the maxima fold the
  // values first), so the model counts the atomics' lanes itself.
  double useful_updates() const override { return 0.0; }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer x_, amax_, sink_;
  k::AmaxArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_depth_test_workload(std::size_t fragments, std::uint32_t width, std::uint64_t seed) {
  if (fragments == 0 || fragments > 0xFFFFFFFFu || width < 40 || width > 16384)
    throw std::invalid_argument("depth_test: 1 to 2^32 - 1 fragments, a frame 40 to 16384 pixels wide");
  return std::make_unique<DepthTestWorkload>(rectangle_fragments(fragments, width, seed), width);
}

std::unique_ptr<Workload> make_amax_workload(std::size_t n, std::uint64_t seed) {
  if (n == 0 || n > 0xFFFFFFFFu) throw std::invalid_argument("amax: 1 to 2^32 - 1 values");
  return std::make_unique<AmaxWorkload>(normal_floats(n, seed));
}

}  // namespace atomq::validation
