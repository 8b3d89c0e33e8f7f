// Hopper's other atomic paths on the GPU (issue: DSMEM, bulk reductions, vector and
// system-scope atomics): each microbenchmark case (microbench/kernels/atomic_path_kernels.cu)
// adds exactly; its SASS, read with the analyzer's classifier, shows the path's opcodes; the
// collector's counters show its traffic; and the model names the path instead of costing it
// as another op (model/atomic_paths.hpp).
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <string>
#include <vector>

#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/analyzer/sass_atomics.hpp"
#include "atomq/analyzer/sass_hints.hpp"
#include "atomq/analyzer/sass_listing.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/microbench/atomic_paths.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/metric_names.hpp"
#include "gpu_guard.hpp"

namespace mb = atomq::microbench;
namespace metric = atomq::model::metric;
using atomq::model::AtomicPath;
using mb::AtomicPathCase;

namespace {

// What each case must show: its kernel, the path its SASS names, and what the model says.
struct Expected {
  AtomicPathCase path;
  const char* kernel;         // part of the mangled name
  AtomicPath sass_path;       // the classifier's path of its atomics (generic: a generic ATOM)
  bool named_unmodelled;      // the model names an unmodelled path
  bool l2_evaluated;          // the L2 queue still costs the kernel
};

constexpr Expected kCases[] = {
    {AtomicPathCase::kDsmemAtomicAdd, "dsmem_atomic_add_kernel", AtomicPath::kGeneric, true, true},
    {AtomicPathCase::kDsmemRedAsync, "dsmem_red_async_kernel", AtomicPath::kDsmem, true, true},
    {AtomicPathCase::kBulkReduceU32, "bulk_reduce_u32_kernel", AtomicPath::kBulkReduction, true, false},
    {AtomicPathCase::kBulkReduceF32, "bulk_reduce_f32_kernel", AtomicPath::kBulkReduction, true, false},
    // Vector adds: named and the L2 left unevaluated by a table without their cells (below).
    {AtomicPathCase::kVectorAddF32x2, "vector_add_f32x2_kernel", AtomicPath::kVectorL2, true, false},
    {AtomicPathCase::kVectorAddF32x4, "vector_add_f32x4_kernel", AtomicPath::kVectorL2, true, false},
    {AtomicPathCase::kSystemScopeDevice, "system_scope_add_kernel", AtomicPath::kL2, false, true},
    {AtomicPathCase::kSystemScopeHost, "system_scope_add_kernel", AtomicPath::kL2, true, false},
};

mb::AtomicPathConfig config_of(AtomicPathCase path) {
  mb::AtomicPathConfig c;
  c.path = path;
  if (path == AtomicPathCase::kSystemScopeHost) c.per_thread = 4;  // across the host link: slow
  if (path == AtomicPathCase::kBulkReduceU32 || path == AtomicPathCase::kBulkReduceF32) {
    c.threads = 128;
    c.words = 1024;
    c.per_thread = 16;
  }
  return c;
}

// This test binary's own path: cuobjdump runs as a child process, where /proc/self/exe is itself.
std::string own_binary() {
  std::array<char, 4096> path{};
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  return n > 0 ? std::string(path.data(), static_cast<size_t>(n)) : std::string();
}

const atomq::analyzer::SassFunction* function_named(const std::vector<atomq::analyzer::SassFunction>& functions,
                                                    const std::string& part) {
  for (const auto& f : functions)
    if (f.mangled_name.find(part) != std::string::npos) return &f;
  return nullptr;
}

}  // namespace

TEST(AtomicPathGpu, EachCaseAddsExactly) {
  ATOMQ_REQUIRE_GPU();
  mb::AtomicPathBench bench(0);
  for (const Expected& e : kCases) {
    const mb::AtomicPathLaunch r = bench.run(config_of(e.path));
    EXPECT_TRUE(r.exact) << atomq::enum_name(e.path) << ": " << r.updates << " updates";
    EXPECT_GT(r.elapsed_ms, 0) << atomq::enum_name(e.path);
  }
}

// The classifier on this binary's own SASS (sm_90): every path's opcodes as model/atomic_paths
// names them; the system-scope kernel's atomics carry .SYS.
TEST(AtomicPathGpu, TheSassOfEachCaseNamesItsPath) {
  const atomq::analyzer::SassDump dump = atomq::analyzer::dump_sass(own_binary());
  if (dump.status != atomq::analyzer::SassDumpStatus::kOk) GTEST_SKIP() << "no SASS listing: " << dump.reason;
  for (const Expected& e : kCases) {
    SCOPED_TRACE(e.kernel);
    const auto* f = function_named(dump.functions, e.kernel);
    ASSERT_NE(f, nullptr);
    const atomq::analyzer::SassAtomics atomics = atomq::analyzer::classify_atomics(*f);
    ASSERT_EQ(atomics.paths.size(), 1u) << "one path per case";
    EXPECT_EQ(atomics.paths.begin()->first, e.sass_path);
    EXPECT_GT(atomics.paths.begin()->second, 0);
    if (e.path == AtomicPathCase::kSystemScopeDevice)
      for (const auto& i : f->instructions)
        if (atomq::model::sass_atomic_path(i.opcode)) EXPECT_NE(i.opcode.find(".STRONG.SYS"), std::string::npos) << i.opcode;
  }
}

// The collector's counters and the model on each case: DSMEM requests, bulk-reduction bytes and
// host-memory requests are counted; the DSMEM path gets its U from the table's DSMEM section (or
// is named unmodelled without one), each unmodelled path is named and the L2 queue does not cost
// what it cannot; system scope on device memory is the L2 path as before.
TEST(AtomicPathGpu, TheCountersShowEachPathAndTheModelNamesIt) {
  ATOMQ_REQUIRE_GPU();
  const atomq::analyzer::SassDump dump = atomq::analyzer::dump_sass(own_binary());
  if (dump.status != atomq::analyzer::SassDumpStatus::kOk) GTEST_SKIP() << "no SASS listing: " << dump.reason;
  const atomq::model::ServiceTimeModel model(
      atomq::calibration::load_service_table(std::string(ATOMQ_SOURCE_DIR) + "/calibration/tables/GH100.json"));
  mb::AtomicPathBench bench(0);
  for (const Expected& e : kCases) {
    SCOPED_TRACE(atomq::enum_name(e.path));
    const mb::AtomicPathConfig c = config_of(e.path);
    std::vector<atomq::model::KernelProfile> profiles = atomq::analyzer::profile_launches([&] { bench.run(c); });
    ASSERT_EQ(profiles.size(), 1u);
    atomq::analyzer::fill_hints(profiles, dump.functions);
    const atomq::model::KernelProfile& p = profiles.front();
    const double dsmem = p.counter(metric::kDsmemAtomRequests).value_or(0) +
                         p.counter(metric::kDsmemRedAsyncRequests).value_or(0);
    const double host = p.counter(metric::kL2HostAtomRequests).value_or(0) + p.counter(metric::kL2HostRedRequests).value_or(0);
    const double warp_updates = 1.0 * c.blocks * c.threads / 32 * c.per_thread;
    if (e.path == AtomicPathCase::kDsmemAtomicAdd || e.path == AtomicPathCase::kDsmemRedAsync)
      EXPECT_EQ(dsmem, warp_updates);  // one request per warp instruction
    else
      EXPECT_EQ(dsmem, 0);
    // The bulk reductions' SASS instructions (their byte counter left the default list for the
    // request port's): some where the kernel issues UBLKRED, none elsewhere.
    const bool bulk = e.path == AtomicPathCase::kBulkReduceU32 || e.path == AtomicPathCase::kBulkReduceF32;
    EXPECT_EQ(p.counter(metric::kBulkReductionInst).value_or(0) > 0, bulk) << p.counter(metric::kBulkReductionInst).value_or(0);
    EXPECT_EQ(host > 0, e.path == AtomicPathCase::kSystemScopeHost) << host;
    const atomq::model::KernelAnalysis a = atomq::model::analyze(p, model);
    const bool vector = e.path == AtomicPathCase::kVectorAddF32x2 || e.path == AtomicPathCase::kVectorAddF32x4;
    if (vector && a.l2.evaluated) {
      // A table calibrated with the vector ops costs them by their own cells, never another op's.
      EXPECT_EQ(a.l2.op, e.path == AtomicPathCase::kVectorAddF32x2 ? atomq::GlobalAtomicOp::kRedAddF32x2
                                                                   : atomq::GlobalAtomicOp::kRedAddF32x4);
      EXPECT_FALSE(a.has(atomq::model::FindingKind::kUnmodelledPath));
      continue;
    }
    const bool dsmem_case = e.path == AtomicPathCase::kDsmemAtomicAdd || e.path == AtomicPathCase::kDsmemRedAsync;
    if (dsmem_case && model.dsmem_section()) {
      // The table's DSMEM section models the path: its U and finding, no "not modelled".
      EXPECT_TRUE(a.dsmem.evaluated) << a.dsmem.not_evaluated_reason;
      EXPECT_GT(a.dsmem.utilization, 0.0);
      EXPECT_TRUE(a.has(atomq::model::FindingKind::kDsmemPath));
      EXPECT_FALSE(a.has(atomq::model::FindingKind::kUnmodelledPath));
    } else {
      EXPECT_EQ(a.has(atomq::model::FindingKind::kUnmodelledPath), e.named_unmodelled);
    }
    EXPECT_EQ(a.l2.evaluated, e.l2_evaluated) << a.l2.not_evaluated_reason;
  }
}
