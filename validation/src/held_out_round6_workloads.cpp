// Held-out round 6: a graph layer's float message aggregation, region areas of a label image and a
// loss reduced into one float; their inputs from fixed seeds and exact CPU references.
#include <algorithm>
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

#include "held_out_round6.cuh"
#include "held_out_workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kEdgeAggregateKernels[] = {
    {"global_atomics", &k::edge_aggregate_global_handle, 256},
    {"hub_privatized", &k::edge_aggregate_hub_private_handle, 256},
    {"no_atomics", &k::edge_aggregate_no_atomics_handle, 256},
};

class EdgeAggregateWorkload : public Workload {
 public:
  EdgeAggregateWorkload(const std::vector<std::uint32_t>& dst, const std::vector<float>& weight, std::uint32_t nodes)
      : nodes_(nodes), edges_(dst.size()) {
    std::vector<double> sums(nodes, 0.0);
    for (std::size_t e = 0; e < dst.size(); ++e) sums[dst[e]] += weight[e];
    expected_ = exact_float_bits(sums, "gnn_edge_aggregate");
    args_ = {upload(dst_, dst), upload(weight_, weight), edges_, sum_.reserve_for<float>(nodes),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.node_sum, 0, nodes_ * sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kEdgeAggregateKernels, std::size(kEdgeAggregateKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    return compare_counts(download(reinterpret_cast<const std::uint32_t*>(args_.node_sum), nodes_), expected_);
  }
  double useful_updates() const override { return static_cast<double>(edges_); }

 private:
  std::uint32_t nodes_;
  std::size_t edges_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer dst_, weight_, sum_, sink_;
  k::EdgeAggregateArgs args_{};
};

// Labels in runs along the rows of a width-wide image: run lengths uniform in [shortest,
// longest] (a run ends at the row's end), each run's label uniform over `labels`.
std::vector<std::uint32_t> label_runs(std::size_t pixels, std::uint32_t width, std::uint32_t labels,
                                      std::uint32_t shortest, std::uint32_t longest, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint32_t> run_length(shortest, longest), label(0, labels - 1);
  std::vector<std::uint32_t> out(pixels);
  std::size_t i = 0;
  while (i < pixels) {
    const std::size_t row_end = std::min(pixels, (i / width + 1) * static_cast<std::size_t>(width));
    const std::size_t end = std::min(row_end, i + run_length(rng));
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(end), label(rng));
    i = end;
  }
  return out;
}

constexpr KernelChoice kLabelAreaKernels[] = {
    {"global_atomics", &k::label_area_global_handle, 256},
    {"warp_merged", &k::label_area_warp_merged_handle, 256},
    {"no_atomics", &k::label_area_no_atomics_handle, 256},
};

class LabelAreaWorkload : public Workload {
 public:
  LabelAreaWorkload(const std::vector<std::uint32_t>& labels, std::uint32_t num_labels)
      : num_labels_(num_labels), pixels_(labels.size()), expected_(count_ids(labels, num_labels)) {
    args_ = {upload(labels_, labels), pixels_, area_.reserve_for<std::uint32_t>(num_labels),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.area, 0, num_labels_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kLabelAreaKernels, std::size(kLabelAreaKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.area, num_labels_), expected_); }
  double useful_updates() const override { return static_cast<double>(pixels_); }

 private:
  std::uint32_t num_labels_;
  std::size_t pixels_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer labels_, area_, sink_;
  k::LabelAreaArgs args_{};
};

constexpr KernelChoice kLossSumKernels[] = {
    {"global_atomics", &k::loss_sum_global_handle, 256},
    {"block_reduced", &k::loss_sum_block_reduced_handle, 256},
    {"no_atomics", &k::loss_sum_no_atomics_handle, 256},
};

class LossSumWorkload : public Workload {
 public:
  explicit LossSumWorkload(const std::vector<float>& loss) : n_(loss.size()) {
    double total = 0.0;
    for (float v : loss) total += v;
    expected_ = exact_float_bits({total}, "loss_sum");
    args_ = {upload(loss_, loss), n_, total_.reserve_for<float>(1), sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.total, 0, sizeof(float))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kLossSumKernels, std::size(kLossSumKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    return compare_counts(download(reinterpret_cast<const std::uint32_t*>(args_.total), 1), expected_);
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer loss_, total_, sink_;
  k::LossSumArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_edge_aggregate_workload(std::size_t edges, std::uint32_t nodes, double power,
                                                       std::uint64_t seed) {
  if (nodes <= k::kAggregateHubs) throw std::invalid_argument("gnn_edge_aggregate: more nodes than hubs");
  return std::make_unique<EdgeAggregateWorkload>(power_law_ids(edges, nodes, power, false, seed),
                                                 whole_units(edges, 4, seed + 1), nodes);
}

std::unique_ptr<Workload> make_label_area_workload(std::size_t pixels, std::uint32_t width, std::uint32_t labels,
                                                   std::uint64_t seed) {
  if (labels == 0 || width == 0) throw std::invalid_argument("label_area: at least one label and one column");
  return std::make_unique<LabelAreaWorkload>(label_runs(pixels, width, labels, 8, 64, seed), labels);
}

std::unique_ptr<Workload> make_loss_sum_workload(std::size_t n, std::uint64_t seed) {
  if (n >= (1u << 24)) throw std::invalid_argument("loss_sum: at most 2^24 - 1 samples keep the float sum exact");
  std::vector<float> loss = whole_units(n, 2, seed);
  for (float& v : loss) v -= 1.0f;  // losses of 0 or 1 unit
  return std::make_unique<LossSumWorkload>(loss);
}

}  // namespace atomq::validation
