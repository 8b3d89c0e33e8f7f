// Held-out round 2, counting and reductions: triangle counting, a word count in shared memory,
// statistics per group under bucket locks, a segmented float max and an argmax through CAS loops;
// their inputs and exact CPU references.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "held_out_kernels.cuh"
#include "held_out_workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;

constexpr KernelChoice kTriangleKernels[] = {
    {"global_counter", &k::triangle_global_handle, 256},
    {"warp_sum", &k::triangle_warp_sum_handle, 256},
    {"no_atomics", &k::triangle_no_atomics_handle, 256},
};

class TriangleWorkload : public Workload {
 public:
  explicit TriangleWorkload(const ForwardGraph& g) : expected_(count_triangles(g)) {
    args_ = {upload(offsets_, g.offsets), upload(neighbours_, g.neighbours), upload(edge_u_, g.edge_u),
             upload(edge_v_, g.edge_v), g.edge_u.size(), triangles_.reserve_for<unsigned long long>(1),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.triangles, 0, sizeof(unsigned long long))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kTriangleKernels, std::size(kTriangleKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    const unsigned long long got = download(args_.triangles, 1)[0];
    return {true, got == expected_, fmt::format("{} triangles, the CPU reference {}", got, expected_)};
  }
  double useful_updates() const override { return static_cast<double>(expected_); }

 private:
  unsigned long long expected_;
  DeviceBuffer offsets_, neighbours_, edge_u_, edge_v_, triangles_, sink_;
  k::TriangleArgs args_{};
};

constexpr KernelChoice kWordKernels[] = {
    {"shared_cas", &k::word_count_shared_cas_handle, 256},
    {"warp_merged", &k::word_count_warp_merged_handle, 256},
    {"no_atomics", &k::word_count_no_atomics_handle, 256},
};

class WordCountWorkload : public Workload {
 public:
  WordCountWorkload(const std::vector<std::uint32_t>& words, std::uint32_t vocabulary)
      : n_(words.size()), vocabulary_(vocabulary), expected_(count_ids(words, vocabulary)) {
    args_ = {upload(words_, words), n_, counts_.reserve_for<std::uint32_t>(vocabulary), vocabulary,
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.counts, 0, vocabulary_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kWordKernels, std::size(kWordKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.counts, vocabulary_), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t vocabulary_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer words_, counts_, sink_;
  k::WordCountArgs args_{};
};

constexpr KernelChoice kGroupKernels[] = {
    {"bucket_locks", &k::group_stats_locked_handle, 256},
    {"lock_free", &k::group_stats_lock_free_handle, 256},
    {"unlocked", &k::group_stats_unlocked_handle, 256},
};

class GroupStatsWorkload : public Workload {
 public:
  GroupStatsWorkload(const std::vector<std::uint32_t>& groups, const std::vector<std::uint32_t>& values,
                     std::uint32_t group_count)
      : n_(groups.size()), groups_count_(group_count), start_(group_count, k::GroupStats{0u, 0u, 0xFFFFFFFFu, 0u}) {
    expected_ = start_;
    for (std::size_t i = 0; i < n_; ++i) {
      k::GroupStats& s = expected_[groups[i]];
      s.sum += values[i];
      ++s.count;
      s.min = std::min(s.min, values[i]);
      s.max = std::max(s.max, values[i]);
    }
    args_ = {upload(groups_, groups), upload(values_, values), n_, stats_.reserve_for<k::GroupStats>(group_count),
             locks_.reserve_for<int>(group_count)};
  }
  void reset() override {
    ATOMQ_CUDA(cudaMemcpy(args_.stats, start_.data(), start_.size() * sizeof(k::GroupStats), cudaMemcpyHostToDevice));
    ATOMQ_CUDA(cudaMemset(args_.locks, 0, groups_count_ * sizeof(int)));
  }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kGroupKernels, std::size(kGroupKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    const std::vector<k::GroupStats> got = download(args_.stats, groups_count_);
    for (std::uint32_t g = 0; g < groups_count_; ++g) {
      const k::GroupStats &a = got[g], &e = expected_[g];
      if (a.sum != e.sum || a.count != e.count || a.min != e.min || a.max != e.max)
        return {true, false, fmt::format("group {}: (sum {}, count {}, min {}, max {}), the CPU reference ({}, {}, {}, {})",
                                         g, a.sum, a.count, a.min, a.max, e.sum, e.count, e.min, e.max)};
    }
    return {true, true, fmt::format("all {} groups' sum, count, min and max equal the CPU reference", groups_count_)};
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t groups_count_;
  std::vector<k::GroupStats> start_, expected_;
  DeviceBuffer groups_, values_, stats_, locks_;
  k::GroupStatsArgs args_{};
};

constexpr KernelChoice kSegmentKernels[] = {
    {"cas_loop", &k::segment_max_cas_handle, 256},
    {"native_max", &k::segment_max_native_handle, 256},
    {"no_atomics", &k::segment_max_no_atomics_handle, 256},
};

class SegmentMaxWorkload : public Workload {
 public:
  SegmentMaxWorkload(const std::vector<std::uint32_t>& segments, const std::vector<float>& values, std::uint32_t count)
      : n_(segments.size()), count_(count), expected_(count, 0u) {
    for (std::size_t i = 0; i < n_; ++i)
      expected_[segments[i]] = std::max(expected_[segments[i]], float_bits(values[i]));  // values >= 0
    args_ = {upload(segments_, segments), upload(values_, values), n_, out_.reserve_for<std::uint32_t>(count),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.out, 0, count_ * sizeof(std::uint32_t))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kSegmentKernels, std::size(kSegmentKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override { return compare_counts(download(args_.out, count_), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t count_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer segments_, values_, out_, sink_;
  k::SegmentMaxArgs args_{};
};

// The host's form of the kernel's key: ordered float bits, then the inverted index.
unsigned long long argmax_key(float v, std::size_t i) {
  const std::uint32_t b = float_bits(v);
  const std::uint32_t ordered = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  return (static_cast<unsigned long long>(ordered) << 32) | (0xFFFFFFFFu - static_cast<std::uint32_t>(i));
}

constexpr KernelChoice kArgmaxKernels[] = {
    {"cas_loop", &k::argmax_cas_handle, 256},
    {"load_then_cas", &k::argmax_load_then_cas_handle, 256},
    {"no_atomics", &k::argmax_no_atomics_handle, 256},
};

class ArgmaxWorkload : public Workload {
 public:
  ArgmaxWorkload(const std::vector<std::uint32_t>& buckets, const std::vector<float>& values, std::uint32_t count)
      : n_(buckets.size()), count_(count), expected_(count, 0ull) {
    for (std::size_t i = 0; i < n_; ++i) expected_[buckets[i]] = std::max(expected_[buckets[i]], argmax_key(values[i], i));
    args_ = {upload(buckets_, buckets), upload(values_, values), n_, out_.reserve_for<unsigned long long>(count),
             sink_.reserve_for<std::uint32_t>(1u << 16)};
  }
  void reset() override { ATOMQ_CUDA(cudaMemset(args_.out, 0, count_ * sizeof(unsigned long long))); }
  void launch(const std::string& variant) override {
    const KernelChoice& c = choose(kArgmaxKernels, std::size(kArgmaxKernels), variant);
    launch_persistent(c.kernel(), c.threads, 0, &args_);
  }
  VariantCheck check() override {
    const std::vector<unsigned long long> got = download(args_.out, count_);
    const auto at = std::mismatch(got.begin(), got.end(), expected_.begin());
    if (at.first == got.end()) return {true, true, fmt::format("all {} buckets' argmax equal the CPU reference", count_)};
    return {true, false, fmt::format("bucket {}: key {:#x}, the CPU reference {:#x}", at.first - got.begin(), *at.first,
                                     *at.second)};
  }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  std::size_t n_;
  std::uint32_t count_;
  std::vector<unsigned long long> expected_;
  DeviceBuffer buckets_, values_, out_, sink_;
  k::ArgmaxArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_triangle_workload(std::uint32_t vertices, std::uint32_t community, double p,
                                                 std::size_t extra, std::uint64_t seed) {
  return std::make_unique<TriangleWorkload>(community_graph(vertices, community, p, extra, seed));
}

std::unique_ptr<Workload> make_word_count_workload(std::size_t n, std::uint32_t vocabulary, double power,
                                                   std::uint64_t seed) {
  return std::make_unique<WordCountWorkload>(power_law_ids(n, vocabulary, power, false, seed), vocabulary);
}

std::unique_ptr<Workload> make_group_stats_workload(std::size_t n, std::uint32_t groups, std::uint64_t seed) {
  return std::make_unique<GroupStatsWorkload>(uniform_values(n, groups, seed), uniform_values(n, 1000, seed + 1),
                                              groups);
}

std::unique_ptr<Workload> make_segment_max_workload(std::size_t n, std::uint32_t segments, std::uint64_t seed) {
  return std::make_unique<SegmentMaxWorkload>(sorted_segments(n, segments, seed), uniform_floats(n, seed + 1),
                                              segments);
}

std::unique_ptr<Workload> make_argmax_workload(std::size_t n, std::uint32_t buckets, std::uint64_t seed) {
  return std::make_unique<ArgmaxWorkload>(uniform_values(n, buckets, seed), uniform_floats(n, seed + 1), buckets);
}

}  // namespace atomq::validation
