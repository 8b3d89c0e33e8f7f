// The upsampling backward workload (kernels/upsample_backward.cu): output gradients uniform in
// [0, 1), the input gradients checked against a CPU sum in double.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include "validation_kernels.cuh"
#include "workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kUpsampleKernels[] = {
    {"global_atomics", &k::upsample_bwd_global_handle, 256},
    {"tile_privatized", &k::upsample_bwd_tile_private_handle, 256},
    {"no_atomics", &k::upsample_bwd_no_atomics_handle, 256},
};

// The host twin of the kernels' source index and weights.
struct HostTap {
  std::uint32_t near, far;
  float far_weight;
};
HostTap host_tap(std::uint32_t dst, std::uint32_t in_size) {
  const float src = std::max(0.0f, 0.5f * (static_cast<float>(dst) + 0.5f) - 0.5f);
  const auto near = static_cast<std::uint32_t>(src);
  return {near, near + (near < in_size - 1u ? 1u : 0u), src - static_cast<float>(near)};
}

std::vector<double> reference(const std::vector<float>& grad, std::uint32_t planes, std::uint32_t in_h,
                              std::uint32_t in_w) {
  std::vector<double> sums(static_cast<std::size_t>(planes) * in_h * in_w, 0.0);
  std::size_t i = 0;
  for (std::uint32_t p = 0; p < planes; ++p)
    for (std::uint32_t y = 0; y < 2 * in_h; ++y) {
      const HostTap r = host_tap(y, in_h);
      for (std::uint32_t x = 0; x < 2 * in_w; ++x, ++i) {
        const HostTap c = host_tap(x, in_w);
        double* plane = sums.data() + static_cast<std::size_t>(p) * in_h * in_w;
        const double g = grad[i], r1 = r.far_weight, r0 = 1.0 - r1, c1 = c.far_weight, c0 = 1.0 - c1;
        plane[r.near * in_w + c.near] += r0 * c0 * g;
        plane[r.near * in_w + c.far] += r0 * c1 * g;
        plane[r.far * in_w + c.near] += r1 * c0 * g;
        plane[r.far * in_w + c.far] += r1 * c1 * g;
      }
    }
  return sums;
}

class UpsampleWorkload : public Workload {
 public:
  UpsampleWorkload(const std::vector<float>& grad, std::uint32_t planes, std::uint32_t in_h, std::uint32_t in_w)
      : in_pixels_(static_cast<std::size_t>(planes) * in_h * in_w) {
    if (grad.size() != 4 * in_pixels_) throw std::invalid_argument("upsampling: gradient size mismatch");
    expected_ = reference(grad, planes, in_h, in_w);
    if ((2 * in_h) % k::kUpsampleTileRows != 0 || (2 * in_w) % k::kUpsampleTileCols != 0)
      throw std::invalid_argument("upsampling: output not a whole number of tiles");
    args_ = {upload(grad_, grad), grad.size(), grad_in_.reserve_for<float>(in_pixels_), planes, in_h, in_w,
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.grad_in, 0, in_pixels_ * sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kUpsampleKernels, std::size(kUpsampleKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    return compare_float_sums(download(args_.grad_in, in_pixels_), expected_, "input gradient");
  }
  double useful_updates() const override { return 4.0 * static_cast<double>(args_.out_pixels); }

 private:
  std::size_t in_pixels_;
  std::vector<double> expected_;
  DeviceBuffer grad_, grad_in_, sink_;
  k::UpsampleArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_upsample_workload(const std::vector<float>& grad, std::uint32_t planes,
                                                 std::uint32_t in_h, std::uint32_t in_w) {
  return std::make_unique<UpsampleWorkload>(grad, planes, in_h, in_w);
}

}  // namespace atomq::validation
