// Keyed reductions through a global CAS loop (a u32 product, a float max, a float add): the
// workload and its exact CPU reference.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <map>

#include "validation_kernels.cuh"
#include "workloads.hpp"

namespace atomq::validation {

namespace {

namespace k = kernels;
using Op = k::CasLoopOp;

constexpr int kThreads = 256;

float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

std::uint32_t identity(Op op) {
  switch (op) {
    case Op::kProductU32: return 1u;
    case Op::kMaxF32: return float_bits(-INFINITY);
    case Op::kAddF32: return 0u;
  }
  return 0u;
}

// The exact result per key: products wrap mod 2^32; float values are integers whose sums stay
// below 2^24, so every order of adds gives the same float.
std::vector<std::uint32_t> reference(Op op, const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                                     std::uint32_t keys_count) {
  std::vector<std::uint32_t> out(keys_count, identity(op));
  std::vector<double> sums(keys_count, 0.0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::uint32_t& o = out[keys[i]];
    if (op == Op::kProductU32) o *= values[i];
    else if (op == Op::kMaxF32) o = float_bits(std::fmax(from_bits(o), from_bits(values[i])));
    else sums[keys[i]] += from_bits(values[i]);
  }
  if (op == Op::kAddF32)
    for (std::uint32_t c = 0; c < keys_count; ++c) out[c] = float_bits(static_cast<float>(sums[c]));
  return out;
}

class CasLoopWorkload : public Workload {
 public:
  CasLoopWorkload(Op op, const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values,
                  std::uint32_t keys_count, std::uint32_t copies)
      : op_(op), n_(keys.size()), keys_count_(keys_count), expected_(reference(op, keys, values, keys_count)) {
    args_ = {upload(keys_, keys), upload(values_, values), n_, out_.reserve_for<std::uint32_t>(keys_count),
             keys_count, sink_.reserve_for<std::uint32_t>(1u << 16),
             replicas_.reserve_for<std::uint32_t>(std::size_t{copies} * keys_count), copies,
             done_.reserve_for<unsigned int>(1)};
  }
  void reset() override {
    const std::vector<std::uint32_t> start(std::size_t{args_.copies} * keys_count_, identity(op_));
    ATOMQ_CUDA(cudaMemcpy(args_.out, start.data(), keys_count_ * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    ATOMQ_CUDA(cudaMemcpy(args_.replicas, start.data(), start.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    ATOMQ_CUDA(cudaMemset(args_.blocks_done, 0, sizeof(unsigned int)));
  }
  void launch(const std::string& variant) override {
    if (variant == "cas_loop") launch_persistent(k::cas_loop_global_handle(op_), kThreads, 0, &args_);
    else if (variant == "copies") launch_persistent(k::cas_loop_copies_handle(op_), kThreads, 0, &args_);
    else if (variant == "combined")
      launch_persistent(k::cas_loop_combined_handle(op_), kThreads, keys_count_ * sizeof(std::uint32_t), &args_);
    else if (variant == "no_atomics") launch_persistent(k::cas_loop_no_atomics_handle(), kThreads, 0, &args_);
    else throw std::invalid_argument("unknown variant '" + variant + "'");
  }
  VariantCheck check() override { return compare_counts(download(args_.out, keys_count_), expected_); }
  double useful_updates() const override { return static_cast<double>(n_); }

 private:
  Op op_;
  std::size_t n_;
  std::uint32_t keys_count_;
  std::vector<std::uint32_t> expected_;
  DeviceBuffer keys_, values_, out_, sink_, replicas_, done_;
  k::CasLoopArgs args_{};
};

}  // namespace

std::unique_ptr<Workload> make_cas_loop_workload(CasLoopKind kind, std::size_t n, std::uint32_t keys_count,
                                                 std::uint64_t seed, std::uint32_t copies) {
  const std::vector<std::uint32_t> keys =
      keys_count == 1 ? std::vector<std::uint32_t>(n, 0u) : uniform_values(n, keys_count, seed);
  std::vector<std::uint32_t> values;
  Op op = Op::kProductU32;
  switch (kind) {
    case CasLoopKind::kProduct:  // odd factors in [3, 65535]: the product never reaches 0
      values = uniform_values(n, 32767, seed + 1);
      for (std::uint32_t& v : values) v = 2 * v + 3;
      break;
    case CasLoopKind::kFloatMax:
      op = Op::kMaxF32;
      for (float f : uniform_floats(n, seed + 1)) values.push_back(float_bits(f));
      break;
    case CasLoopKind::kFloatAdd:  // integers 0..63 as floats
      op = Op::kAddF32;
      for (std::uint32_t v : uniform_values(n, 64, seed + 1)) values.push_back(float_bits(static_cast<float>(v)));
      break;
  }
  return std::make_unique<CasLoopWorkload>(op, keys, values, keys_count, copies);
}

}  // namespace atomq::validation
