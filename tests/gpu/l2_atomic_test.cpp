// The L2 atomic-stream benchmark: each kernel compiles to the intended global atomic (REDG
// when the result is dropped, ATOMG when it is used), and its loads behave as the L2 section
// assumes (one address serializes at one slice; many lines spread over the slices).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "cuobjdump_path.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/analyzer/sass_atomics.hpp"
#include "atomq/common/statistics.hpp"
#include "atomq/microbench/l2_atomic_stream.hpp"
#include "atomq/model/metric_names.hpp"
#include "gpu_guard.hpp"

namespace mb = atomq::microbench;
namespace metric = atomq::model::metric;
using atomq::AddressSpread;
using atomq::GlobalAtomicOp;

namespace {

using atomq::test::have_cuobjdump;

// Every global atomic opcode (REDG.*, ATOMG.*) of each function of the built binary.
std::map<std::string, std::vector<std::string>> global_atomics(const std::string& cuobjdump) {
  const std::string cmd = cuobjdump + " --dump-sass " + ATOMQ_GPU_CLI_PATH + " 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::map<std::string, std::vector<std::string>> result;
  if (!pipe) return result;
  const std::regex function_re(R"(Function : (\S+))");
  const std::regex atomic_re(R"(\b((?:REDG|ATOMG|RED|ATOM)\.[A-Za-z0-9_.]+))");  // F16x2: lower-case x
  std::vector<std::string>* current = nullptr;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe.get())) {
    const std::string line(buf.data());
    std::smatch m;
    if (std::regex_search(line, m, function_re)) {
      current = &result[m[1]];
    } else if (current != nullptr && std::regex_search(line, m, atomic_re)) {
      current->push_back(m[1]);
    }
  }
  return result;
}

bool is_red(GlobalAtomicOp op) { return !atomq::traits(op).returns_result; }

}  // namespace

// Every op's kernel compiles to global atomics that the analyzer's own classifier
// (analyzer/src/sass_atomics.cpp) maps back to exactly that op: the calibrated cell and the
// SASS a user's kernel shows name the same thing.
TEST(L2AtomicGpu, EachKernelIssuesTheIntendedGlobalAtomic) {
  std::string cuobjdump;
  if (!have_cuobjdump(&cuobjdump)) GTEST_SKIP() << "cuobjdump not found (it ships with the GPU machine's toolkit)";
  const auto functions = global_atomics(cuobjdump);
  for (GlobalAtomicOp op : atomq::enum_values<GlobalAtomicOp>()) {
    SCOPED_TRACE(atomq::enum_name(op));
    const std::regex name_re("l2_atomic_kernelIL.*GlobalAtomicOpE" + std::to_string(static_cast<int>(op)) + "E");
    const std::vector<std::string>* opcodes = nullptr;
    for (const auto& [name, list] : functions)
      if (std::regex_search(name, name_re)) opcodes = &list;
    ASSERT_NE(opcodes, nullptr) << "no l2_atomic_kernel for this op in " << ATOMQ_GPU_CLI_PATH;
    // The unrolled stream's atomics and the dependent chain's one (the law sweep's round trip).
    EXPECT_EQ(opcodes->size(), static_cast<size_t>(mb::kL2AtomicUnroll) + 1);
    for (const std::string& sass : *opcodes) {
      const auto match = atomq::analyzer::match_global_atomic(sass);
      ASSERT_TRUE(match.has_value()) << sass;
      EXPECT_EQ(match->op, op) << sass;
      EXPECT_FALSE(match->stand_in) << sass;
      EXPECT_EQ(sass.rfind(is_red(op) ? "RED" : "ATOM", 0), 0u) << sass;
    }
  }
}

// One profiled launch of `config`: L2 requests (all slices, hottest slice) of the op's kind,
// L2 cycles elapsed, and the launch's shape.
struct Profiled {
  double requests = 0, hottest = 0, cycles = 0;
  mb::L2AtomicLaunch launch;
};

Profiled profile(mb::L2AtomicStreamBench& bench, const mb::L2AtomicConfig& config) {
  atomq::analyzer::ProfilerOptions options;
  options.metrics = {metric::kL2RedRequests, metric::kL2RedRequestsMax, metric::kL2AtomRequests,
                     metric::kL2AtomRequestsMax, metric::kL2CyclesElapsedMax};
  Profiled p;
  const auto profiles = atomq::analyzer::profile_launches([&] { p.launch = bench.run(config); }, options);
  EXPECT_EQ(profiles.size(), 1u);
  if (profiles.empty()) return p;
  const auto& k = profiles.front();
  const bool red = is_red(config.op);
  p.requests = k.counter(red ? metric::kL2RedRequests : metric::kL2AtomRequests).value_or(0);
  p.hottest = k.counter(red ? metric::kL2RedRequestsMax : metric::kL2AtomRequestsMax).value_or(0);
  p.cycles = k.counter(metric::kL2CyclesElapsedMax).value_or(0);
  return p;
}

// Measured on an H200 (docs/calibration.md, "The L2 section"): the lanes of a warp do not
// merge on one address (32 requests per instruction reach the home slice) but do merge within
// one line (1 request); each request from the far L2 partition is counted twice, so the GPU-wide
// count is 1.5x the home slice's.
TEST(L2AtomicGpu, OneAddressSerializesAtOneSliceAndManyLinesSpread) {
  ATOMQ_REQUIRE_GPU();
  mb::L2AtomicStreamBench bench(0);
  const Profiled one = profile(bench, {GlobalAtomicOp::kRedAddU32, AddressSpread::kOneAddress, 64, 8});
  const Profiled line = profile(bench, {GlobalAtomicOp::kRedAddU32, AddressSpread::kOneLine, 64, 8});
  const Profiled many = profile(bench, {GlobalAtomicOp::kRedAddU32, AddressSpread::kManyLines, 64, 64});
  ASSERT_GT(one.requests, 0);
  ASSERT_GT(line.requests, 0);
  ASSERT_GT(many.requests, 0);
  auto per_inst = [](const Profiled& p, double requests) {
    return requests / static_cast<double>(p.launch.warp_instructions);
  };
  std::printf("one_address: %.3f requests per warp instruction, %.3f at the hottest slice, "
              "%.3f L2 cycles per hottest-slice request\n",
              per_inst(one, one.requests), per_inst(one, one.hottest), one.cycles / one.hottest);
  std::printf("one_line:    %.3f requests per warp instruction, %.3f at the hottest slice\n",
              per_inst(line, line.requests), per_inst(line, line.hottest));
  std::printf("many_lines:  %.3f requests per warp instruction, share %.4f, %.3f L2 cycles per "
              "hottest-slice request\n",
              per_inst(many, many.requests), many.hottest / many.requests, many.cycles / many.hottest);
  EXPECT_NEAR(per_inst(one, one.hottest), 32.0, 0.01);
  EXPECT_NEAR(per_inst(one, one.requests), 48.0, 0.5);
  EXPECT_NEAR(per_inst(line, line.hottest), 1.0, 0.01);
  EXPECT_NEAR(per_inst(many, many.requests), 48.0, 0.5);
  EXPECT_LT(many.hottest / many.requests, 0.05);  // spread over the slices
  // GPU-wide, one address retires far fewer requests per L2 cycle than many lines.
  EXPECT_GT(one.cycles / one.requests, 4.0 * (many.cycles / many.requests));
}

TEST(L2AtomicGpu, SizingAndTimingAreSteady) {
  ATOMQ_REQUIRE_GPU();
  mb::L2AtomicStreamBench bench(0);
  for (AddressSpread spread : {AddressSpread::kOneAddress, AddressSpread::kDistinct}) {
    mb::L2AtomicConfig cfg{GlobalAtomicOp::kAtomAddU32, spread, 64, 4};
    cfg.atomics_per_thread = bench.atomics_per_thread_for(cfg, 1.0);
    EXPECT_EQ(cfg.atomics_per_thread % mb::kL2AtomicUnroll, 0);
    const std::vector<double> times = bench.time_ms(cfg, 5);
    const atomq::SampleSummary s = atomq::summarize(times);
    SCOPED_TRACE(atomq::enum_name(spread) + " " + std::to_string(cfg.atomics_per_thread) + " atomics/thread");
    EXPECT_GT(s.median, 0.3);
    EXPECT_LT(s.median, 4.0);
    EXPECT_LT((s.max - s.min) / s.median, 0.05);
  }
}
