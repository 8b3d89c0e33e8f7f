// The SASS of the project's own built binaries, through cuobjdump: the parser on a real dump
// and the classifications the kernels' sources make certain (tests/gpu/targets/
// multi_kernel_app.cu, histogram/kernels/, microbench/kernels/). No GPU needed; skipped with
// the reason where cuobjdump is not installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "atomq/analyzer/sass_atomics.hpp"
#include "atomq/analyzer/sass_listing.hpp"

namespace an = atomq::analyzer;
using atomq::GlobalAtomicOp;
using atomq::OpVariant;

namespace {

// The dump of `binary` (once per binary and test run); skips the calling test when none.
const an::SassDump& dump_of(const std::string& binary) {
  static std::map<std::string, an::SassDump> dumps;
  auto it = dumps.find(binary);
  if (it == dumps.end()) it = dumps.emplace(binary, an::dump_sass(binary)).first;
  return it->second;
}

#define DUMP_OR_SKIP(var, binary)                                                               \
  if (!std::filesystem::exists(binary)) GTEST_SKIP() << binary << " is not built";               \
  const an::SassDump& var = dump_of(binary);                                                     \
  if (var.status == an::SassDumpStatus::kToolMissing) GTEST_SKIP() << var.reason;                \
  ASSERT_EQ(var.status, an::SassDumpStatus::kOk) << var.reason

// The sm_90 code of the one function whose mangled name contains `part` (nullptr: none, or
// several).
const an::SassFunction* sm90_function(const an::SassDump& dump, const std::string& part) {
  const an::SassFunction* found = nullptr;
  for (const an::SassFunction& f : dump.functions) {
    if (f.mangled_name.find(part) == std::string::npos || an::sass_arch_number(f.arch) != 90) continue;
    if (found != nullptr && found->mangled_name != f.mangled_name) return nullptr;
    found = &f;
  }
  return found;
}

an::SassAtomics atomics_of(const an::SassDump& dump, const std::string& part) {
  const an::SassFunction* f = sm90_function(dump, part);
  EXPECT_NE(f, nullptr) << "no single sm_90 function matching " << part;
  return f ? an::classify_atomics(*f) : an::SassAtomics{};
}

}  // namespace

TEST(SassOfBuiltBinaries, MultiKernelAppKernels) {
  DUMP_OR_SKIP(dump, ATOMQ_MULTI_KERNEL_APP_PATH);
  const an::SassAtomics popc = atomics_of(dump, "_Z13popc_distinctPj");
  EXPECT_GT(popc.shared_popc_inc, 0);
  EXPECT_EQ(popc.shared_variant, OpVariant::kPopcInc);
  EXPECT_EQ(popc.dominant_global, GlobalAtomicOp::kRedAddU32);  // atomicAdd(sink, words[0]), result unused

  const an::SassAtomics add = atomics_of(dump, "_Z14add_conflict32Pj");
  EXPECT_GT(add.shared_add, 0);
  EXPECT_EQ(add.shared_variant, OpVariant::kAdd);
  EXPECT_EQ(add.dominant_global, std::nullopt);

  const an::SassAtomics cas = atomics_of(dump, "_Z12cas_distinctPj");
  EXPECT_GT(cas.shared_cas, 0);
  EXPECT_EQ(cas.shared_variant, std::nullopt);
  EXPECT_TRUE(cas.cas_in_loop);  // a counted loop of CAS, not a retry loop (sass_atomics.hpp)

  const an::SassAtomics none = atomics_of(dump, "_Z10no_atomicsPKfPfi");
  EXPECT_FALSE(none.any());

  EXPECT_EQ(atomics_of(dump, "_Z12popc_same_exPj").dominant_global, GlobalAtomicOp::kRedAddU32);
  EXPECT_EQ(atomics_of(dump, "_Z11cooperativePj").shared_variant, OpVariant::kAdd);
}

TEST(SassOfBuiltBinaries, HistogramKernels) {
  DUMP_OR_SKIP(dump, ATOMQ_GPU_CLI_PATH);
  const an::SassAtomics naive = atomics_of(dump, "hist_naive_global_kernelIjE");
  EXPECT_EQ(naive.dominant_global, GlobalAtomicOp::kRedAddU32);
  EXPECT_EQ(naive.shared_variant, std::nullopt);
  EXPECT_FALSE(naive.cas_in_loop);

  const an::SassAtomics block = atomics_of(dump, "hist_block_private_kernelIjE");
  EXPECT_EQ(block.shared_variant, OpVariant::kPopcInc);
  EXPECT_EQ(block.dominant_global, GlobalAtomicOp::kRedAddU32);  // the merge, result unused

  const an::SassAtomics rank = atomics_of(dump, "hist_rank_kernelIjLb0EE");
  EXPECT_EQ(rank.shared_variant, OpVariant::kAdd);  // the counting sort uses the result
}

TEST(SassOfBuiltBinaries, MicrobenchmarkStreams) {
  DUMP_OR_SKIP(dump, ATOMQ_GPU_CLI_PATH);
  // atomic_stream_kernel<fao, cas_quarters>: fao 0 = POPC.INC, 1 = ADD (tests/gpu/sass_test.cpp).
  EXPECT_EQ(atomics_of(dump, "atomic_stream_kernelILi0ELi0E").shared_variant, OpVariant::kPopcInc);
  EXPECT_EQ(atomics_of(dump, "atomic_stream_kernelILi1ELi0E").shared_variant, OpVariant::kAdd);
  const an::SassAtomics all_cas = atomics_of(dump, "atomic_stream_kernelILi0ELi4E");
  EXPECT_GT(all_cas.shared_cas, 0);
  EXPECT_EQ(all_cas.shared_variant, std::nullopt);
  // The control has no shared atomic; its one global atomic adds the 64-bit verification sum.
  const an::SassAtomics control = atomics_of(dump, "atomic_stream_kernelILi2ELi0E");
  EXPECT_EQ(control.shared_variant, std::nullopt);
  EXPECT_EQ(control.shared_cas, 0);
  EXPECT_EQ(control.dominant_global, GlobalAtomicOp::kRedAddU64);  // a 64-bit sum
}

// The validation kernels' global atomicAdd: on one warp-uniform address (the frontier's tail) the
// compiler elects one lane per warp; on a per-lane address (a particle's cell) every lane issues.
TEST(SassOfBuiltBinaries, CompilerWarpAggregation) {
  DUMP_OR_SKIP(dump, ATOMQ_GPU_CLI_PATH);
  const an::SassAtomics tail = atomics_of(dump, "frontier_push_global_kernel");
  EXPECT_GT(tail.global_matched(), 0);
  EXPECT_EQ(tail.global_warp_aggregated, tail.global_matched());
  const an::SassAtomics cells = atomics_of(dump, "bin_global_kernel");
  EXPECT_GT(cells.global_matched(), 0);
  EXPECT_EQ(cells.global_warp_aggregated, 0);
  // A lock per group: its release is the atomic exchange the lock hint looks for.
  const an::SassAtomics locks = atomics_of(dump, "group_stats_locked_kernel");
  EXPECT_GT(locks.global_ops.count(GlobalAtomicOp::kAtomExchU32), 0u);
  EXPECT_GT(locks.global_ops.count(GlobalAtomicOp::kAtomCasU32), 0u);
}

TEST(SassOfBuiltBinaries, EveryFunctionParsesWithInstructions) {
  DUMP_OR_SKIP(dump, ATOMQ_GPU_CLI_PATH);
  ASSERT_FALSE(dump.functions.empty());
  for (const an::SassFunction& f : dump.functions) {
    SCOPED_TRACE(f.mangled_name);
    EXPECT_FALSE(f.arch.empty());
    ASSERT_FALSE(f.instructions.empty());
    EXPECT_EQ(f.instructions.front().offset, 0);
    for (const an::SassLoop& loop : an::backward_branch_loops(f)) EXPECT_LT(loop.start, loop.end);
  }
}
