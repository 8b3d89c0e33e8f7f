// Held-out round 2, appends and dequeues through one counter: a BFS frontier push, a ticketed
// work queue, a compaction through a shared tail; their inputs and exact CPU references.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "held_out_kernels.cuh"
#include "held_out_workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

// The first `count` values of `got` against `expected`, as multisets (append order is free).
VariantCheck compare_appended(std::vector<std::uint32_t> got, std::uint32_t count, std::vector<std::uint32_t> expected) {
  if (count != expected.size())
    return {true, false, fmt::format("{} values appended, the CPU reference keeps {}", count, expected.size())};
  got.resize(count);
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  const auto at = std::mismatch(got.begin(), got.end(), expected.begin());
  if (at.first == got.end())
    return {true, true, fmt::format("the {} appended values equal the CPU reference's (as a multiset)", count)};
  return {true, false, fmt::format("appended values differ from the CPU reference's at sorted position {}: {} vs {}",
                                   at.first - got.begin(), *at.first, *at.second)};
}

constexpr KernelChoice kFrontierKernels[] = {
    {"global_tail", &k::frontier_push_global_handle, 256},
    {"warp_aggregated", &k::frontier_push_warp_handle, 256},
    {"no_atomics", &k::frontier_push_no_atomics_handle, 256},
};

// Values appended through one tail (Args: out, tail, n); checked as a multiset of `expected`.
template <typename Args>
class AppendWorkload : public Workload {
 public:
  AppendWorkload(const KernelChoice* kernels, std::size_t kernel_count, std::vector<std::uint32_t> expected,
                 std::size_t n)
      : kernels_(kernels), kernel_count_(kernel_count), n_(n), expected_(std::move(expected)) {
    args_.out = out_.reserve_for<std::uint32_t>(n);
    args_.tail = tail_.reserve_for<std::uint32_t>(1);
    args_.n = n;
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.tail, 0, sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kernels_, kernel_count_, variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    return compare_appended(download(args_.out, n_), download(args_.tail, 1)[0], expected_);
  }
  double useful_updates() const override { return static_cast<double>(expected_.size()); }

 protected:
  Args args_{};

 private:
  const KernelChoice* kernels_;
  std::size_t kernel_count_, n_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer out_, tail_;
};

std::vector<std::uint32_t> unvisited(const std::vector<std::uint32_t>& targets, const std::vector<std::uint8_t>& visited) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t t : targets)
    if (!visited[t]) out.push_back(t);
  return out;
}

class FrontierWorkload : public AppendWorkload<k::FrontierArgs> {
 public:
  FrontierWorkload(const std::vector<std::uint32_t>& targets, const std::vector<std::uint8_t>& visited)
      : AppendWorkload(kFrontierKernels, std::size(kFrontierKernels), unvisited(targets, visited), targets.size()) {
    args_.targets = upload(targets_, targets);
    args_.visited = upload(visited_, visited);
    args_.sink = sink_.reserve_for<std::uint32_t>(1u << 16);
  }

 private:
  DeviceBuffer targets_, visited_, sink_;
};

constexpr KernelChoice kTicketKernels[] = {
    {"ticket_per_thread", &k::ticket_per_thread_handle, 256},
    {"ticket_per_warp", &k::ticket_per_warp_handle, 256},
    {"static_tasks", &k::ticket_static_handle, 256},
};

class TicketWorkload : public Workload {
 public:
  TicketWorkload(const std::vector<std::uint32_t>& data, std::uint32_t tasks) : tasks_(tasks), expected_(tasks, 0u) {
    for (std::uint32_t t = 0; t < tasks; ++t)
      for (std::uint32_t w = 0; w < k::kTaskWords; ++w) expected_[t] += data[std::size_t{t} * k::kTaskWords + w];
    args_ = {upload(data_, data), tasks, out_.reserve_for<std::uint32_t>(tasks), ticket_.reserve_for<std::uint32_t>(1),
             upload(step_, std::vector<std::uint32_t>{1u})};
  }
  void reset() override {
    ATOMQ_CUDA(cudaMemset(args_.ticket, 0, sizeof(std::uint32_t)));
    ATOMQ_CUDA(cudaMemset(args_.out, 0, tasks_ * sizeof(std::uint32_t)));
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kTicketKernels, std::size(kTicketKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.out, tasks_), expected_); }
  double useful_updates() const override { return static_cast<double>(tasks_); }

 private:
  std::uint32_t tasks_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer data_, out_, ticket_, step_;
  k::TicketArgs args_{};
};

constexpr KernelChoice kCompactKernels[] = {
    {"shared_tail", &k::compact_shared_tail_handle, 256},
    {"warp_tail", &k::compact_warp_tail_handle, 256},
    {"no_atomics", &k::compact_no_atomics_handle, 256},
};

std::vector<std::uint32_t> kept_values(const std::vector<std::uint32_t>& values) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t v : values)
    if ((v & 3u) == 0u) out.push_back(v);
  return out;
}

class CompactWorkload : public AppendWorkload<k::CompactArgs> {
 public:
  explicit CompactWorkload(const std::vector<std::uint32_t>& values)
      : AppendWorkload(kCompactKernels, std::size(kCompactKernels), kept_values(values), values.size()) {
    if (values.size() % k::kCompactTile != 0) throw std::invalid_argument("compaction input: not a multiple of the tile");
    args_.values = upload(values_, values);
    args_.sink = sink_.reserve_for<std::uint32_t>(1u << 16);
  }

 private:
  DeviceBuffer values_, sink_;
};

}  // namespace

std::unique_ptr<Workload> make_frontier_workload(std::size_t edges, std::uint32_t vertices, std::uint64_t seed) {
  const std::vector<std::uint32_t> targets = uniform_values(edges, vertices, seed);
  std::vector<std::uint8_t> visited;
  for (std::uint32_t v : uniform_values(vertices, 2, seed + 1)) visited.push_back(static_cast<std::uint8_t>(v));
  return std::make_unique<FrontierWorkload>(targets, visited);
}

std::unique_ptr<Workload> make_ticket_workload(std::uint32_t tasks, std::uint64_t seed) {
  return std::make_unique<TicketWorkload>(uniform_values(std::size_t{tasks} * k::kTaskWords, 1u << 20, seed), tasks);
}

std::unique_ptr<Workload> make_compact_workload(std::size_t n, std::uint64_t seed) {
  return std::make_unique<CompactWorkload>(uniform_values(n, 0xFFFFFFFFu, seed));
}

}  // namespace atomq::validation
