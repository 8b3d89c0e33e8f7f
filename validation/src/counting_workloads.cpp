// Workloads that count ids: graph in-degree, CSR row lengths, particle cells, image channels.
#include <fmt/format.h>

#include <iterator>
#include <memory>

#include "inputs.hpp"
#include "validation_kernels.cuh"
#include "workload.hpp"
#include "workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kCountKernels[] = {
    {"global_atomics", &k::count_global_handle, 256},
    {"hub_privatized", &k::count_hub_private_handle, 512},
    {"warp_aggregated", &k::count_warp_aggregated_handle, 256},
    {"no_atomics", &k::count_no_atomics_handle, 256},
};

// counts[ids[i]]++ over `ids`; `private_counters` ids are counted in shared memory by
// hub_privatized.
class CountWorkload : public Workload {
 public:
  CountWorkload(std::vector<std::uint32_t> ids, std::uint32_t num_ids, std::uint32_t private_counters)
      : n_(ids.size()), num_ids_(num_ids), private_(private_counters), expected_(count_ids(ids, num_ids)) {
    args_.ids = upload(ids_, ids);
    args_.n = n_;
    args_.counts = counts_.reserve_for<std::uint32_t>(num_ids);
    args_.num_counters = num_ids;
    args_.private_counters = private_counters;
    args_.sink = sink_.reserve_for<std::uint32_t>(1u << 16);
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, num_ids_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kCountKernels, std::size(kCountKernels), variant);
    const std::size_t shared = variant == "hub_privatized" ? private_ * sizeof(std::uint32_t) : 0;
    launch_persistent(c.kernel(), c.threads, shared, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, num_ids_), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t num_ids_, private_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer ids_, counts_, sink_;
  k::CountArgs args_{};
};

constexpr KernelChoice kBinKernels[] = {
    {"global_atomics", &k::bin_global_handle, 256},
    {"block_privatized", &k::bin_block_private_handle, 512},
    {"no_atomics", &k::bin_no_atomics_handle, 256},
};

class BinningWorkload : public Workload {
 public:
  BinningWorkload(const std::vector<Position>& p, std::uint32_t cells_x, std::uint32_t cells_y)
      : n_(p.size()), cells_(cells_x * cells_y) {
    std::vector<std::uint32_t> cell(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      const auto x = std::min(static_cast<std::uint32_t>(p[i].x * cells_x), cells_x - 1u);
      const auto y = std::min(static_cast<std::uint32_t>(p[i].y * cells_y), cells_y - 1u);
      cell[i] = y * cells_x + x;
    }
    expected_ = count_ids(cell, cells_);
    std::vector<float2> as_float2(n_);
    for (std::size_t i = 0; i < n_; ++i) as_float2[i] = {p[i].x, p[i].y};
    args_ = {upload(positions_, as_float2), n_, counts_.reserve_for<std::uint32_t>(cells_), cells_x, cells_y,
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, cells_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kBinKernels, std::size(kBinKernels), variant);
    const std::size_t shared = variant == "block_privatized" ? cells_ * sizeof(std::uint32_t) : 0;
    launch_persistent(c.kernel(), c.threads, shared, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, cells_), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t cells_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer positions_, counts_, sink_;
  k::BinArgs args_{};
};

constexpr KernelChoice kImageKernels[] = {
    {"shared_atomics", &k::image_shared_handle, 256},
    {"warp_replicated", &k::image_warp_replicated_handle, 256},
    {"no_atomics", &k::image_no_atomics_handle, 256},
};
constexpr std::size_t kImageWarpCopyWords = 4 * 256 + 1;

class ImageWorkload : public Workload {
 public:
  explicit ImageWorkload(const std::vector<std::uint32_t>& pixels) : n_(pixels.size()), expected_(4 * 256, 0u) {
    for (std::uint32_t p : pixels)
      for (int c = 0; c < 4; ++c) ++expected_[c * 256 + ((p >> (8 * c)) & 0xFFu)];
    args_.pixels = reinterpret_cast<const uchar4*>(upload(pixels_, pixels));
    args_.n = n_;
    args_.counts = counts_.reserve_for<std::uint32_t>(4 * 256);
    args_.sink = sink_.reserve_for<std::uint32_t>(1u << 16);
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, 4 * 256 * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kImageKernels, std::size(kImageKernels), variant);
    const std::size_t shared =
        variant == "warp_replicated" ? (c.threads / 32) * kImageWarpCopyWords * sizeof(std::uint32_t) : 0;
    launch_persistent(c.kernel(), c.threads, shared, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, 4 * 256), expected_); }
  double useful_updates() const override { return 4.0 * static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer pixels_, counts_, sink_;
  k::ImageArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_count_workload(std::vector<std::uint32_t> ids, std::uint32_t num_ids,
                                              std::uint32_t private_counters) {
  return std::make_unique<CountWorkload>(std::move(ids), num_ids, private_counters);
}
std::unique_ptr<Workload> make_binning_workload(const std::vector<Position>& p, std::uint32_t cells_x,
                                                std::uint32_t cells_y) {
  return std::make_unique<BinningWorkload>(p, cells_x, cells_y);
}
std::unique_ptr<Workload> make_image_workload(const std::vector<std::uint32_t>& pixels) {
  return std::make_unique<ImageWorkload>(pixels);
}

}  // namespace atomq::validation
