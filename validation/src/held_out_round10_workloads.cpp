// Held-out round 10: a transposed sparse matrix-vector product from CSR and the backward of an
// embedding lookup over Zipf-skewed rows; their inputs from fixed seeds, double CPU references of
// the float sums.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "held_out_round10.cuh"
#include "held_out_workloads.hpp"
#include "inputs.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

// The positions of `key` (each below `keys`) in ascending key order, by a counting sort: equal keys
// keep their input order.
std::vector<std::uint32_t> counting_order(const std::vector<std::uint32_t>& key, std::uint32_t keys) {
  std::vector<std::uint32_t> next(std::size_t{keys} + 1, 0u);
  for (std::uint32_t c : key) ++next[c + 1];
  std::partial_sum(next.begin(), next.end(), next.begin());
  std::vector<std::uint32_t> order(key.size());
  for (std::size_t j = 0; j < key.size(); ++j) order[next[key[j]]++] = static_cast<std::uint32_t>(j);
  return order;
}

// A CSR matrix by its nonzeros: rows ascending (each nonzero's row uniform, then sorted, so row
// lengths vary around nnz / rows), columns uniform, values and x uniform in [0.5, 1.5).
struct SparseInput {
  std::uint32_t rows = 0, cols = 0;
  std::vector<std::uint32_t> row_of, col;
  std::vector<float> val, x;
};

SparseInput random_csr(std::size_t nnz, std::uint32_t rows, std::uint32_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  SparseInput m{rows, cols, std::vector<std::uint32_t>(nnz), std::vector<std::uint32_t>(nnz),
                uniform_on_grid(nnz, seed + 1), uniform_on_grid(rows, seed + 2)};
  std::vector<std::size_t> length(rows, 0);  // the uniform rows counted, then written in order
  for (std::size_t j = 0; j < nnz; ++j) ++length[rng() % rows];
  auto next = m.row_of.begin();
  for (std::uint32_t r = 0; r < rows; ++r) next = std::fill_n(next, length[r], r);
  for (std::uint32_t& c : m.col) c = static_cast<std::uint32_t>(rng() % cols);
  return m;
}

constexpr KernelChoice kTransposeSpmvKernels[] = {
    {"scatter_atomics", &k::transpose_spmv_scatter_atomics_handle, 256},
    {"gather_csc", &k::transpose_spmv_gather_csc_handle, 256},
    {"no_atomics", &k::transpose_spmv_no_atomics_handle, 256},
};

class TransposeSpmvWorkload : public Workload {
 public:
  explicit TransposeSpmvWorkload(const SparseInput& m) : nnz_(m.col.size()), expected_(m.cols, 0.0) {
    for (std::size_t j = 0; j < nnz_; ++j) expected_[m.col[j]] += double{m.val[j]} * m.x[m.row_of[j]];
    // The transpose as CSC, built here (not timed): a stable counting sort by column keeps each
    // column's rows ascending.
    const std::vector<std::uint32_t> order = counting_order(m.col, m.cols);
    std::vector<std::uint32_t> offsets(std::size_t{m.cols} + 1, 0u), csc_row(nnz_);
    std::vector<float> csc_val(nnz_);
    for (std::uint32_t c : m.col) ++offsets[c + 1];
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    for (std::size_t p = 0; p < nnz_; ++p) {
      csc_row[p] = m.row_of[order[p]];
      csc_val[p] = m.val[order[p]];
    }
    args_ = {upload(col_, m.col), upload(val_, m.val), upload(row_of_, m.row_of), upload(x_, m.x), nnz_,
             upload(offsets_, offsets), upload(csc_row_, csc_row), upload(csc_val_, csc_val), m.cols,
             y_.reserve_for<float>(m.cols), sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.y, 0, args_.cols * sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kTransposeSpmvKernels, std::size(kTransposeSpmvKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_float_sums(download(args_.y, args_.cols), expected_, "column"); }
  double useful_updates() const override { return static_cast<double>(nnz_); }

 private:
  std::size_t nnz_;
  std::vector<double> expected_;
  DeviceBuffer col_, val_, row_of_, x_, offsets_, csc_row_, csc_val_, y_, sink_;
  k::TransposeSpmvArgs args_{};
};

// n table rows, Zipf-like: rank r with probability proportional to 1 / (r + 1), the ranks
// scattered over the ids by a Fisher-Yates shuffle (the raw generator, not std::shuffle, whose
// draws the standard leaves to the library).
std::vector<std::uint32_t> zipf_rows(std::size_t n, std::uint32_t rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> cdf(rows);
  double total = 0.0;
  for (std::uint32_t r = 0; r < rows; ++r) cdf[r] = total += 1.0 / (r + 1.0);
  std::vector<std::uint32_t> id(rows);
  std::iota(id.begin(), id.end(), 0u);
  for (std::uint32_t r = rows - 1; r > 0; --r) std::swap(id[r], id[rng() % (r + 1u)]);
  std::vector<std::uint32_t> out(n);
  for (std::uint32_t& o : out) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53 * total;
    const auto rank = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
    o = id[std::min<std::size_t>(static_cast<std::size_t>(rank), rows - 1u)];
  }
  return out;
}

constexpr KernelChoice kEmbeddingGradKernels[] = {
    {"row_atomics", &k::embedding_grad_row_atomics_handle, 256},
    {"sorted_segments", &k::embedding_grad_sorted_segments_handle, 256},
    {"no_atomics", &k::embedding_grad_no_atomics_handle, 256},
};

class EmbeddingGradWorkload : public Workload {
 public:
  EmbeddingGradWorkload(const std::vector<std::uint32_t>& idx, const std::vector<float>& grad, std::uint32_t rows)
      : floats_(std::size_t{rows} * k::kEmbeddingDim), n_(idx.size()), expected_(floats_, 0.0) {
    for (std::size_t i = 0; i < n_; ++i)
      for (std::uint32_t d = 0; d < k::kEmbeddingDim; ++d)
        expected_[std::size_t{idx[i]} * k::kEmbeddingDim + d] += grad[i * k::kEmbeddingDim + d];
    // The sort by row at setup (not timed): the permutation, the gradient rows read through it.
    const std::vector<std::uint32_t> order = counting_order(idx, rows);
    std::vector<std::uint32_t> sorted(n_);
    for (std::size_t p = 0; p < n_; ++p) sorted[p] = idx[order[p]];
    args_ = {upload(idx_, idx), upload(grad_, grad), upload(sorted_, sorted), upload(order_, order), n_,
             table_.reserve_for<float>(floats_), sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.table, 0, floats_ * sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kEmbeddingGradKernels, std::size(kEmbeddingGradKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_float_sums(download(args_.table, floats_), expected_, "table float"); }
  double useful_updates() const override { return static_cast<double>(n_) * k::kEmbeddingDim; }

 private:
  std::size_t floats_, n_;
  std::vector<double> expected_;
  DeviceBuffer idx_, grad_, sorted_, order_, table_, sink_;
  k::EmbeddingGradArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_transpose_spmv_workload(std::size_t nonzeros, std::uint32_t rows, std::uint32_t cols,
                                                       std::uint64_t seed) {
  if (nonzeros == 0 || nonzeros > 0xFFFFFFFFu || rows == 0 || cols == 0 || cols == 0xFFFFFFFFu)
    throw std::invalid_argument("transpose_spmv: 1 to 2^32 - 1 nonzeros, at least one row and column");
  return std::make_unique<TransposeSpmvWorkload>(random_csr(nonzeros, rows, cols, seed));
}

std::unique_ptr<Workload> make_embedding_grad_workload(std::size_t lookups, std::uint32_t rows, std::uint64_t seed) {
  if (lookups == 0 || lookups > 0xFFFFFFFFu || rows == 0 || rows > (0xFFFFFFFFu / k::kEmbeddingDim))
    throw std::invalid_argument("embedding_grad: 1 to 2^32 - 1 lookups, 1 to 2^26 - 1 table rows");
  return std::make_unique<EmbeddingGradWorkload>(zipf_rows(lookups, rows, seed),
                                                  uniform_on_grid(lookups * k::kEmbeddingDim, seed + 1), rows);
}

}  // namespace atomq::validation
