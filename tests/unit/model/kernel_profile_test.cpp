#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "atomq/model/kernel_profile.hpp"
#include "model_fixture.hpp"

namespace atomq::model {
namespace {

using nlohmann::json;

KernelProfile sample() {
  test::ProfileSpec spec;
  spec.name = "hist_shared";
  spec.dram_bytes = 4096;
  KernelProfile p = test::make_profile(spec);
  p.source = CounterSource::kInjected;
  p.source_detail = "./app launch 3";
  p.symbol = "_Z11hist_sharedPj";
  p.shared_atomic_lane_bytes = 8;
  p.shared_cas_spin = true;
  p.global_atomic_warp_aggregated = false;
  p.global_atomic_exch = true;
  p.global_atomic_op = GlobalAtomicOp::kRedOrU32;
  p.global_atomic_op_stands_in_for = "REDG.E.XOR.STRONG.GPU";
  p.useful_updates = 12345;
  p.launch.max_active_blocks_per_sm = 8;
  return p;
}

// Parse a modified copy of the sample and return the error message ("" = accepted).
std::string error_after(const std::function<void(json&)>& edit) {
  json doc = json::parse(serialize_kernel_profile(sample()));
  edit(doc);
  try {
    parse_kernel_profile(doc.dump(), "p.json");
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "";
}

TEST(KernelProfile, RoundTripKeepsEveryField) {
  const KernelProfile p = sample();
  const KernelProfile q = parse_kernel_profile(serialize_kernel_profile(p), "mem");
  EXPECT_EQ(q.kernel_name, p.kernel_name);
  EXPECT_EQ(q.symbol, "_Z11hist_sharedPj");
  EXPECT_EQ(q.shared_atomic_lane_bytes, 8);
  EXPECT_EQ(q.shared_cas_spin, true);
  EXPECT_EQ(q.global_atomic_warp_aggregated, false);  // a false hint is kept, not dropped
  EXPECT_EQ(q.global_atomic_exch, true);
  EXPECT_EQ(q.global_atomic_op, GlobalAtomicOp::kRedOrU32);
  EXPECT_EQ(q.global_atomic_op_stands_in_for, "REDG.E.XOR.STRONG.GPU");
  EXPECT_EQ(q.launch.grid, p.launch.grid);
  EXPECT_EQ(q.launch.block, p.launch.block);
  EXPECT_EQ(q.launch.max_active_blocks_per_sm, 8);
  EXPECT_EQ(q.device.chip, "GH100");
  EXPECT_EQ(q.device.compute_capability_major, 9);
  EXPECT_EQ(q.device.sm_count, p.device.sm_count);
  EXPECT_DOUBLE_EQ(q.device.sm_clock_mhz, p.device.sm_clock_mhz);
  EXPECT_EQ(q.source, CounterSource::kInjected);
  EXPECT_EQ(q.source_detail, p.source_detail);
  EXPECT_EQ(q.counters, p.counters);
  EXPECT_EQ(q.shared_atomic_variant, p.shared_atomic_variant);
  ASSERT_TRUE(q.useful_updates);
  EXPECT_DOUBLE_EQ(*q.useful_updates, 12345);
}

TEST(KernelProfile, RoundTripKeepsProcessGraphNodeAndDevice) {
  KernelProfile p = sample();
  p.process = ProcessTag{4242, 1, "RANK"};
  p.graph = GraphNodeTag{7, 1, 2};
  p.device.ordinal = 1;
  p.device.uuid = "GPU-8c5e1a2b-0000-4d3e-9f10-abcdefabcdef";
  const KernelProfile q = parse_kernel_profile(serialize_kernel_profile(p), "mem");
  ASSERT_TRUE(q.process && q.graph);
  EXPECT_EQ(q.process->pid, 4242);
  EXPECT_EQ(q.process->rank, 1);
  EXPECT_EQ(q.process->rank_variable, "RANK");
  EXPECT_EQ(q.graph->graph_launch, 7);
  EXPECT_EQ(q.graph->node, 1);
  EXPECT_EQ(q.graph->nodes, 2);
  EXPECT_EQ(q.device.ordinal, 1);
  EXPECT_EQ(q.device.uuid, p.device.uuid);
  // Without them the document carries none of the three.
  const json plain = json::parse(serialize_kernel_profile(sample()));
  EXPECT_FALSE(plain.contains("process"));
  EXPECT_FALSE(plain["kernel"].contains("graph"));
  EXPECT_FALSE(plain["device"].contains("uuid"));
}

TEST(KernelProfile, ProcessGraphAndUuidAreChecked) {
  auto with = [](json process) {
    return error_after([&](json& d) { d["process"] = process; });
  };
  EXPECT_EQ(with({{"pid", 12}}), "");
  EXPECT_NE(with({{"pid", 12}, {"rank", 1}}).find("process.rank_variable"), std::string::npos);
  EXPECT_NE(with({{"pid", 0}}).find("process.pid"), std::string::npos);
  EXPECT_NE(with({{"pid", 12}, {"host", "x"}}).find("host"), std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["kernel"]["graph"] = {{"launch", 0}, {"node", 2}, {"nodes", 2}}; })
                .find("kernel.graph.node"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["device"]["uuid"] = "../../etc"; }).find("device.uuid"), std::string::npos);
}

// A profile of a whole graph launch names its kernel nodes; the names match the node count.
TEST(KernelProfile, WholeGraphLaunchNamesItsKernels) {
  KernelProfile p = sample();
  p.graph = GraphNodeTag{3, 0, 2, {"hist(unsigned int*)", "scale(float*)"}};
  const KernelProfile q = parse_kernel_profile(serialize_kernel_profile(p), "mem");
  ASSERT_TRUE(q.graph);
  EXPECT_EQ(q.graph->kernels, p.graph->kernels);
  auto graph_with = [](json graph) {
    return error_after([&](json& d) { d["kernel"]["graph"] = graph; });
  };
  EXPECT_EQ(graph_with({{"launch", 0}, {"node", 0}, {"nodes", 2}, {"kernels", {"a", "b"}}}), "");
  EXPECT_NE(graph_with({{"launch", 0}, {"node", 0}, {"nodes", 2}, {"kernels", {"a"}}}).find("kernel.graph.kernels"),
            std::string::npos);
  EXPECT_NE(graph_with({{"launch", 0}, {"node", 1}, {"nodes", 2}, {"kernels", {"a", "b"}}}).find("kernel.graph.node"),
            std::string::npos);
  EXPECT_NE(graph_with({{"launch", 0}, {"node", 0}, {"nodes", 1}, {"kernels", {7}}}).find("kernel.graph.kernels[0]"),
            std::string::npos);
}

// The NVTX ranges open at the launch, outermost first, round-trip; absent, none; not an array
// of strings, refused naming the field.
TEST(KernelProfile, NvtxRangesRoundTripAndAreChecked) {
  KernelProfile p = sample();
  p.nvtx = {"train_step", "aten::histc, seq = 12"};
  const KernelProfile q = parse_kernel_profile(serialize_kernel_profile(p), "mem");
  EXPECT_EQ(q.nvtx, p.nvtx);
  EXPECT_FALSE(json::parse(serialize_kernel_profile(sample()))["kernel"].contains("nvtx"));
  EXPECT_NE(error_after([](json& d) { d["kernel"]["nvtx"] = "aten::histc"; }).find("kernel.nvtx"), std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["kernel"]["nvtx"] = {"a", 7}; }).find("kernel.nvtx[1]"), std::string::npos);
}

TEST(KernelProfile, SymbolIsOptional) {
  EXPECT_EQ(error_after([](json& d) { d["kernel"].erase("symbol"); }), "");
  EXPECT_NE(error_after([](json& d) { d["kernel"]["symbol"] = 7; }).find("kernel.symbol"), std::string::npos);
}

// Integers beyond CUDA's limits are refused, never narrowed (4294967297 read as 1).
TEST(KernelProfile, OutOfRangeIntegersAreRefusedNotNarrowed) {
  EXPECT_NE(error_after([](json& d) { d["kernel"]["launch"]["block"][0] = 4294967296LL; }).find("kernel.launch.block[0]"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["kernel"]["launch"]["grid"][1] = 65536; }).find("kernel.launch.grid[1]"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["device"]["sm_count"] = 4294967297LL; }).find("device.sm_count"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["version"] = 4294967297LL; }).find("unsupported version 4294967297"),
            std::string::npos);
  EXPECT_EQ(error_after([](json& d) { d["kernel"]["launch"]["grid"][0] = 2147483647LL; }), "");
}

// A range with a bound of 0 states it: -1 registers "must be in 0..65536", not "must be <= 65536".
TEST(KernelProfile, ARangeFromZeroNamesBothBounds) {
  EXPECT_NE(error_after([](json& d) { d["kernel"]["launch"]["registers_per_thread"] = -1; })
                .find("field 'kernel.launch.registers_per_thread': must be in 0..65536"),
            std::string::npos)
      << error_after([](json& d) { d["kernel"]["launch"]["registers_per_thread"] = -1; });
}

TEST(KernelProfile, LaneBytesHintIsFourOrEight) {
  EXPECT_NE(error_after([](json& d) { d["hints"]["shared_atomic_lane_bytes"] = 6; }).find("hints.shared_atomic_lane_bytes"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["hints"]["shared_cas_spin"] = 1; }).find("hints.shared_cas_spin"),
            std::string::npos);
}

TEST(KernelProfile, DocumentCarriesFormatAndVersion) {
  const json doc = json::parse(serialize_kernel_profile(sample()));
  EXPECT_EQ(doc["format"], "atomq.kernel_profile");
  EXPECT_EQ(doc["version"], 1);
  EXPECT_TRUE(doc["counters"].contains("sm__cycles_active.max"));
}

TEST(KernelProfile, ValidationNamesTheField) {
  EXPECT_EQ(error_after([](json&) {}), "");
  EXPECT_NE(error_after([](json& d) { d["format"] = "other"; }).find("'format'"), std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["version"] = 2; }).find("'version'"), std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["kernel"].erase("name"); }).find("'kernel.name'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["kernel"]["launch"]["block"] = {256, 1}; })
                .find("'kernel.launch.block'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["device"]["sm_count"] = -1; }).find("'device.sm_count'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["device"]["compute_capability"] = "nine"; })
                .find("'device.compute_capability'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["source"]["kind"] = "guess"; }).find("'source.kind'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["counters"]["sm__cycles_active"] = 1.0; })
                .find("'counters.sm__cycles_active'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["counters"]["sm__cycles_active.avg"] = "many"; })
                .find("'counters.sm__cycles_active.avg'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["hints"]["colour"] = 1; }).find("'hints.colour'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["hints"]["shared_atomic_variant"] = "cas"; })
                .find("'hints.shared_atomic_variant'"),
            std::string::npos);
  EXPECT_NE(error_after([](json& d) { d["extra"] = true; }).find("'extra'"), std::string::npos);
}

TEST(KernelProfile, NegativeCounterIsAcceptedForTheModelToReport) {
  EXPECT_EQ(error_after([](json& d) { d["counters"]["sm__cycles_active.avg"] = -5; }), "");
}

TEST(KernelProfile, NotJsonIsAProfileError) {
  EXPECT_THROW(parse_kernel_profile("{", "broken.json"), ProfileError);
  EXPECT_THROW(load_kernel_profile("/nonexistent/profile.json"), ProfileError);
}

}  // namespace
}  // namespace atomq::model
