// The in-process profile of the calibration microbenchmarks reports exactly the analytically
// expected counts: warp-level atomics, CAS share and wavefronts per instruction.
#include <gtest/gtest.h>

#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/microbench/atomic_stream.hpp"
#include "atomq/model/metric_names.hpp"
#include "gpu_guard.hpp"

namespace mb = atomq::microbench;
namespace metric = atomq::model::metric;

namespace {

struct Expected {
  atomq::OpVariant op;
  int cas_quarters;
  atomq::Pattern pattern;
  int warps;
  double k_low, k_high;  // wavefronts per instruction
};

}  // namespace

TEST(InProcessProfileGpu, MicrobenchmarkCountsAreExact) {
  ATOMQ_REQUIRE_GPU();
  mb::AtomicStreamBench bench(0);
  const int sms = bench.device().sm_count;
  const Expected cases[] = {
      {atomq::OpVariant::kPopcInc, 0, atomq::kDistinct, 8, 1.0, 1.0},
      {atomq::OpVariant::kPopcInc, 0, atomq::kSameAddress, 16, 1.0, 1.0},
      {atomq::OpVariant::kAdd, 0, atomq::bank_conflict(32), 4, 32.0, 32.0},
      {atomq::OpVariant::kAdd, 0, atomq::bank_conflict(8), 32, 8.0, 8.0},
      {atomq::OpVariant::kAdd, 2, atomq::kDistinct, 8, 1.0, 2.0},
      {atomq::OpVariant::kAdd, 4, atomq::kDistinct, 8, 2.0, 2.5},
      {atomq::OpVariant::kAdd, 4, atomq::kSameAddress, 8, 64.0, 64.0},
  };
  for (const Expected& c : cases) {
    mb::StreamConfig cfg;
    cfg.op = c.op;
    cfg.cas_quarters = c.cas_quarters;
    cfg.pattern = c.pattern;
    cfg.warps_per_sm = c.warps;
    cfg.atomics_per_warp = 256;
    long long apw = 0;
    const auto profiles = atomq::analyzer::profile_launches([&] { apw = bench.run(cfg).atomics_per_warp; });
    ASSERT_EQ(profiles.size(), 1u);
    const auto& p = profiles.front();
    SCOPED_TRACE(p.kernel_name + " warps=" + std::to_string(c.warps));
    EXPECT_NE(p.kernel_name.find("atomic_stream_kernel"), std::string::npos);
    const double n = static_cast<double>(sms) * c.warps * apw;
    const double cas = n * c.cas_quarters / 4.0;
    EXPECT_EQ(p.counter(metric::kSharedAtomInst).value_or(-1), n);
    EXPECT_EQ(p.counter(metric::kSharedAtomInstCas).value_or(-1), cas);
    EXPECT_EQ(p.counter(metric::kSharedAtomInstAlu).value_or(-1), n - cas);
    const double k = p.counter(metric::kSharedAtomWavefronts).value_or(0) / n;
    EXPECT_GE(k, c.k_low);
    EXPECT_LE(k, c.k_high);
    EXPECT_EQ(p.launch.grid[0], sms * ((c.warps + 31) / 32));
    EXPECT_EQ(p.device.chip, "GH100");
    EXPECT_GT(p.launch.registers_per_thread, 0);
  }
}

TEST(InProcessProfileGpu, FilterSkipAndCount) {
  ATOMQ_REQUIRE_GPU();
  mb::AtomicStreamBench bench(0);
  mb::StreamConfig cfg;
  cfg.atomics_per_warp = 64;
  atomq::analyzer::ProfilerOptions options;
  options.kernel_filter = atomq::analyzer::KernelFilter("regex:atomic_stream_kernel<1, 0>");
  options.launch_skip = 1;
  options.launch_count = 2;
  long long seen = 0;
  atomq::analyzer::KernelProfilingSession session(options, [&](const atomq::model::KernelProfile&) { ++seen; });
  for (int i = 0; i < 5; ++i) bench.run(cfg);      // matches: skip 1, profile 2, pass 2
  cfg.op = atomq::OpVariant::kPopcInc;
  bench.run(cfg);                                   // does not match
  session.finish();
  const auto s = session.stats();
  EXPECT_EQ(seen, 2);
  EXPECT_EQ(s.launches_profiled, 2);
  EXPECT_EQ(s.launches_seen, 6);
  EXPECT_EQ(s.launches_filtered, 4);
  EXPECT_EQ(s.failed, 0) << s.last_error;
}
