// The microbenchmark issues exactly the atomics it claims, and its timings are sane.
#include <gtest/gtest.h>

#include "atomq/common/statistics.hpp"
#include "atomq/calibration/calibrator.hpp"
#include "atomq/microbench/atomic_stream.hpp"
#include "gpu_guard.hpp"

namespace mb = atomq::microbench;

namespace {

struct Case {
  atomq::OpVariant op;
  atomq::Pattern pattern;
  int warps;
  int lanes;
};

}  // namespace

// Every lane-level increment lands: the shared words of all blocks sum to
// SMs x warps x active lanes x atomics per warp (the thread-level atomic count).
TEST(AtomicStreamGpu, EveryAtomicIsExecutedExactlyOnce) {
  ATOMQ_REQUIRE_GPU();
  mb::AtomicStreamBench bench(0);
  const int sms = bench.device().sm_count;
  const Case cases[] = {
      {atomq::OpVariant::kPopcInc, atomq::kDistinct, 8, 32},
      {atomq::OpVariant::kPopcInc, atomq::kSameAddress, 64, 32},
      {atomq::OpVariant::kAdd, atomq::bank_conflict(32), 4, 32},
      {atomq::OpVariant::kAdd, atomq::bank_conflict(4), 48, 7},
      {atomq::OpVariant::kAdd, atomq::kDistinct, 1, 1},
      {atomq::OpVariant::kPopcInc, atomq::bank_conflict(8), 12, 24},
  };
  for (const Case& c : cases) {
    mb::StreamConfig cfg;
    cfg.op = c.op;
    cfg.pattern = c.pattern;
    cfg.warps_per_sm = c.warps;
    cfg.active_lanes = c.lanes;
    cfg.atomics_per_warp = 256;
    cfg.verify = true;
    const mb::StreamResult r = bench.run(cfg);
    const unsigned long long expected =
        static_cast<unsigned long long>(sms) * c.warps * c.lanes * r.atomics_per_warp;
    EXPECT_EQ(r.verify_sum, expected) << "warps=" << c.warps << " lanes=" << c.lanes;
    EXPECT_EQ(r.sms_measured + r.sms_skipped, sms);
    EXPECT_EQ(r.sms_skipped, 0) << "blocks were not placed one load per SM";
  }
}

TEST(AtomicStreamGpu, ControlStreamTouchesNothing) {
  ATOMQ_REQUIRE_GPU();
  mb::AtomicStreamBench bench(0);
  mb::StreamConfig cfg;
  cfg.control = true;
  cfg.warps_per_sm = 32;
  cfg.verify = true;
  const mb::StreamResult r = bench.run(cfg);
  EXPECT_EQ(r.verify_sum, 0u);
  ASSERT_FALSE(r.cycles_per_inst.empty());
  // The loop alone costs far less than one cycle per would-be atomic.
  EXPECT_LT(atomq::median(r.cycles_per_inst), 0.5);
}

TEST(AtomicStreamGpu, BadConfigurationIsRejected) {
  ATOMQ_REQUIRE_GPU();
  mb::AtomicStreamBench bench(0);
  mb::StreamConfig cfg;
  cfg.warps_per_sm = 0;
  EXPECT_THROW(bench.run(cfg), std::invalid_argument);
  cfg.warps_per_sm = 8;
  cfg.active_lanes = 33;
  EXPECT_THROW(bench.run(cfg), std::invalid_argument);
  cfg.active_lanes = 32;
  cfg.pattern = atomq::Pattern{3};
  EXPECT_THROW(bench.run(cfg), std::invalid_argument);
  cfg.pattern = atomq::kDistinct;
  cfg.warps_per_sm = 33;  // does not split into equal blocks of <= 32 warps
  EXPECT_THROW(bench.run(cfg), std::invalid_argument);
}

TEST(AtomicStreamGpu, SmClockIsPlausible) {
  ATOMQ_REQUIRE_GPU();
  mb::AtomicStreamBench bench(0);
  const double mhz = bench.measure_sm_clock_mhz();
  EXPECT_GT(mhz, 300.0);
  EXPECT_LT(mhz, 4000.0);
}

// A dependent chain waits for each result: its latency exceeds the saturated service time,
// and a serialized pattern takes longer than a conflict-free one.
TEST(AtomicStreamGpu, DependentChainLatencyIsOrdered) {
  ATOMQ_REQUIRE_GPU();
  mb::AtomicStreamBench bench(0);
  auto latency = [&](atomq::LatencyOp op, atomq::Pattern pattern) {
    mb::LatencyConfig cfg;
    cfg.op = op;
    cfg.pattern = pattern;
    const mb::LatencyResult r = bench.run_latency(cfg);
    return atomq::median(r.cycles_per_atomic);
  };
  const double add_distinct = latency(atomq::LatencyOp::kAdd, atomq::kDistinct);
  const double add_same = latency(atomq::LatencyOp::kAdd, atomq::kSameAddress);
  const double cas_same = latency(atomq::LatencyOp::kCas, atomq::kSameAddress);
  EXPECT_GT(add_distinct, 8.0);  // far above the ~1 cycle/instruction of a saturated stream
  EXPECT_GT(add_same, add_distinct + 16.0);
  EXPECT_GT(cas_same, add_same);
}
