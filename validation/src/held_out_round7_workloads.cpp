// Held-out round 7: a COO sparse matrix-vector product, the scatter of a bucket sort and a visited
// bitmap; their inputs from fixed seeds and exact CPU references.
#include <algorithm>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "held_out_round7.cuh"
#include "held_out_workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kCooSpmvKernels[] = {
    {"global_atomics", &k::coo_spmv_global_handle, 256},
    {"warp_segmented", &k::coo_spmv_warp_segmented_handle, 256},
    {"no_atomics", &k::coo_spmv_no_atomics_handle, 256},
};

class CooSpmvWorkload : public Workload {
 public:
  CooSpmvWorkload(const std::vector<std::uint32_t>& row, const std::vector<std::uint32_t>& col,
                  const std::vector<float>& val, const std::vector<float>& x)
      : rows_(static_cast<std::uint32_t>(x.size())), nonzeros_(row.size()) {
    std::vector<double> y(rows_, 0.0);
    for (std::size_t i = 0; i < row.size(); ++i) y[row[i]] += static_cast<double>(val[i]) * x[col[i]];
    expected_ = exact_float_bits(y, "coo_spmv");
    args_ = {upload(row_, row), upload(col_, col), upload(val_, val), upload(x_, x), nonzeros_,
             y_.reserve_for<float>(rows_), sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.y, 0, rows_ * sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kCooSpmvKernels, std::size(kCooSpmvKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    return compare_counts(download(reinterpret_cast<const std::uint32_t*>(args_.y), rows_), expected_);
  }
  double useful_updates() const override { return static_cast<double>(nonzeros_); }

 private:
  std::uint32_t rows_;
  std::size_t nonzeros_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer row_, col_, val_, x_, y_, sink_;
  k::CooSpmvArgs args_{};
};

constexpr KernelChoice kBucketScatterKernels[] = {
    {"global_atomics", &k::bucket_scatter_global_handle, 256},
    {"tile_ranked", &k::bucket_scatter_tile_ranked_handle, 256},
    {"no_atomics", &k::bucket_scatter_no_atomics_handle, 256},
};

// Each bucket's slots hold its keys in an order the atomics decide: the check sorts every
// bucket's slots and compares them with the sorted keys (bucket = the key's top bits, so sorted
// keys are also grouped by bucket).
class BucketScatterWorkload : public Workload {
 public:
  explicit BucketScatterWorkload(const std::vector<std::uint32_t>& keys) : n_(keys.size()), sorted_(keys) {
    std::sort(sorted_.begin(), sorted_.end());
    std::vector<std::uint32_t> start(k::kScatterBuckets + 1, 0u);
    for (std::uint32_t key : keys) ++start[(key >> k::kScatterShift) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    start_ = start;
    args_ = {upload(keys_, keys), n_, upload(start_dev_, start), fill_.reserve_for<std::uint32_t>(k::kScatterBuckets),
             out_.reserve_for<std::uint32_t>(n_), sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override {
    ATOMQ_CUDA(cudaMemset(args_.fill, 0, k::kScatterBuckets * sizeof(std::uint32_t)));
    ATOMQ_CUDA(cudaMemset(args_.out, 0, n_ * sizeof(std::uint32_t)));
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kBucketScatterKernels, std::size(kBucketScatterKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    std::vector<std::uint32_t> got = download(args_.out, n_);
    for (unsigned int b = 0; b < k::kScatterBuckets; ++b)
      std::sort(got.begin() + start_[b], got.begin() + start_[b + 1]);
    return compare_counts(got, sorted_);
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> sorted_, start_;
  DeviceBuffer keys_, start_dev_, fill_, out_, sink_;
  k::BucketScatterArgs args_{};
};

constexpr KernelChoice kVisitedBitmapKernels[] = {
    {"global_atomics", &k::visited_bitmap_global_handle, 256},
    {"warp_merged", &k::visited_bitmap_warp_merged_handle, 256},
    {"no_atomics", &k::visited_bitmap_no_atomics_handle, 256},
};

class VisitedBitmapWorkload : public Workload {
 public:
  VisitedBitmapWorkload(const std::vector<std::uint32_t>& ids, std::uint32_t vertices)
      : words_(vertices / 32u + (vertices % 32u != 0u)), n_(ids.size()), expected_(words_, 0u) {
    for (std::uint32_t id : ids) expected_[id >> 5] |= 1u << (id & 31u);
    args_ = {upload(ids_, ids), n_, bits_.reserve_for<std::uint32_t>(words_), sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.bits, 0, words_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kVisitedBitmapKernels, std::size(kVisitedBitmapKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.bits, words_), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::uint32_t words_;
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer ids_, bits_, sink_;
  k::VisitedBitmapArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_coo_spmv_workload(std::size_t nonzeros, std::uint32_t rows, std::uint64_t seed) {
  if (rows < 2 || nonzeros < rows || nonzeros > 0xFFFFFFFFu)
    throw std::invalid_argument("coo_spmv: at least two rows, a nonzero per row, at most 2^32 - 1 nonzeros");
  const std::vector<std::uint32_t> row = sorted_segments(nonzeros, rows, seed);
  const std::uint32_t used_rows = row.back() + 1u;
  return std::make_unique<CooSpmvWorkload>(row, uniform_values(nonzeros, used_rows, seed + 1),
                                           whole_units(nonzeros, 4, seed + 2), whole_units(used_rows, 2, seed + 3));
}

std::unique_ptr<Workload> make_bucket_scatter_workload(std::size_t n, std::uint64_t seed) {
  if (n == 0 || n > 0xFFFFFFFFu) throw std::invalid_argument("bucket_scatter: 1 to 2^32 - 1 keys");
  return std::make_unique<BucketScatterWorkload>(uniform_values(n, 0xFFFFFFFFu, seed));
}

std::unique_ptr<Workload> make_visited_bitmap_workload(std::size_t n, std::uint32_t vertices, double power,
                                                       std::uint64_t seed) {
  if (vertices == 0) throw std::invalid_argument("visited_bitmap: at least one vertex");
  return std::make_unique<VisitedBitmapWorkload>(power_law_ids(n, vertices, power, false, seed), vertices);
}

}  // namespace atomq::validation
