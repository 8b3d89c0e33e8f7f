// The report built from the recorded runs on the bundled GH100 table (an H200's): what the model
// concludes per kernel, the comparisons, and the Markdown and HTML renderings.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <vector>

#include "atomq/common/atomic_file.hpp"
#include "atomq/model/metric_names.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/report/recorded.hpp"
#include "atomq/report/report.hpp"
#include "l2_fixture.hpp"

namespace atomq::report {
namespace {

std::string recorded(const std::string& name) { return std::string(ATOMQ_RECORDED_RUNS_DIR) + "/" + name; }

ReportRequest recorded_request() {
  ReportRequest request;
  const RecordedSet set = load_recorded_set(ATOMQ_RECORDED_RUNS_DIR);
  for (const auto& path : set.run_paths) request.runs.push_back(load_run_document(path));
  const auto table = model::bundled_table_path(ATOMQ_BUNDLED_TABLE_DIR, "GH100");
  EXPECT_TRUE(table.has_value());
  request.table = calibration::load_service_table(*table);
  request.table_path = *table;
  request.table_origin = "bundled";
  return request;
}

const ReportKernel& kernel(const Report& r, const std::string& label) {
  for (const auto& k : r.kernels)
    if (k.label == label) return k;
  throw std::runtime_error("no kernel " + label);
}

TEST(ShortKernelName, DropsReturnTypeNamespacesTemplatesAndParameters) {
  EXPECT_EQ(short_kernel_name("void atomq::microbench::kernels::hist_lane_replicated_kernel<unsigned char, true>"
                              "(atomq::microbench::kernels::HistArgs)"),
            "hist_lane_replicated_kernel");
  EXPECT_EQ(short_kernel_name("add_conflict32(unsigned int*)"), "add_conflict32");
  EXPECT_EQ(short_kernel_name("(anonymous namespace)::k<std::pair<int, int>>(int)"), "k");
  EXPECT_EQ(short_kernel_name("plain"), "plain");
  // A whole graph launch: every kernel node shortened.
  EXPECT_EQ(short_kernel_name("graph(void at::native::fill_kernel<4, float> + at::native::scatter_kernel(int) + "
                              "mul(float*))"),
            "graph(fill_kernel+scatter_kernel+mul)");
  EXPECT_EQ(short_kernel_name("graph(int*)"), "graph");  // a kernel that is called graph
}

// Where in the code: the busiest site first, the compiler's aggregation and CAS loops named.
TEST(AtomicSiteRows, BusiestFirstWithTheirNotes) {
  model::KernelAnalysis a;
  model::AtomicSite cold, hot, spin;
  cold.offset = 0x80;
  cold.opcode = "ATOMS.ADD";
  cold.predicate = "@P0";
  cold.warp_aggregated = true;
  cold.busy_share = 0.03;
  hot.offset = 0x90;
  hot.opcode = "ATOMS.ADD";
  hot.busy_share = 0.9;
  hot.wavefronts_per_instruction = 32;
  hot.source = "/src/app.cu:40";
  spin.offset = 0xa0;
  spin.opcode = "ATOMS.CAST.SPIN";
  spin.busy_share = 0.07;
  spin.attempts_per_update = 23.4;
  a.sites = {cold, hot, spin};
  const auto rows = atomic_site_rows(a, 2);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "0x0090");
  EXPECT_EQ(rows[0][1], "app.cu:40");
  EXPECT_EQ(rows[0][3], "90.0%");
  EXPECT_EQ(rows[0][5], "32.0");
  EXPECT_EQ(rows[1][1], "-");
  EXPECT_EQ(rows[1][7], "CAS loop: 23.4 attempts per update");
  EXPECT_EQ(atomic_site_rows(a, 8)[2][2], "@P0 ATOMS.ADD");
  EXPECT_EQ(atomic_site_rows(a, 8)[2][7], "warp-aggregated by the compiler");
  EXPECT_EQ(atomic_site_header().size(), rows[0].size());
  EXPECT_TRUE(atomic_site_rows(model::KernelAnalysis{}, 8).empty());
}

TEST(Report, EvaluatesEveryRecordedKernelWithTheCurrentModel) {
  const Report r = build_report(recorded_request());
  ASSERT_EQ(r.kernels.size(), 24u);  // 12 histogram runs, 7 launches of the test program, 5 of sites_app
  for (const auto& k : r.kernels) EXPECT_TRUE(k.analysis.evaluated) << k.label;

  // The single-value histogram whose atomic result is used (counting-sort ranks) is bound by
  // the atomic unit with high conflict, replication is recommended with a predicted gain, and
  // the lane-replicated form's report shows the bottleneck gone.
  const auto& ranks = kernel(r, "rank_shared-single");
  EXPECT_EQ(ranks.analysis.utilization_class, model::UtilizationClass::kSevere);
  const auto* rank_conflict = ranks.analysis.find(model::FindingKind::kHighUtilizationHighConflict);
  ASSERT_NE(rank_conflict, nullptr);
  EXPECT_NE(rank_conflict->recommendation.find("replicate"), std::string::npos);
  ASSERT_TRUE(ranks.best_what_if.has_value());
  EXPECT_GT(ranks.best_what_if->speedup, 1.5);
  EXPECT_EQ(kernel(r, "rank_lane_replicated-single").analysis.utilization_class,
            model::UtilizationClass::kNotAtomicBound);

  // The 32-way bank conflict of the test program saturates the unit; replication pays.
  const auto& conflict = kernel(r, "multi_kernel_app/add_conflict32");
  EXPECT_EQ(conflict.analysis.utilization_class, model::UtilizationClass::kSevere);
  EXPECT_NEAR(conflict.analysis.inputs.wavefronts_per_instruction, 32.0, 0.5);
  ASSERT_TRUE(conflict.best_what_if.has_value());
  EXPECT_GT(conflict.best_what_if->speedup, 1.5);
  const auto* conflict_finding = conflict.analysis.find(model::FindingKind::kHighUtilizationHighConflict);
  ASSERT_NE(conflict_finding, nullptr);
  bool replication = false;
  for (const auto& w : conflict_finding->what_ifs)
    replication |= w.id == model::WhatIfId::kReplicate && w.speedup > 1.5;
  EXPECT_TRUE(replication) << "a replication what-if with a predicted gain";

  // The global-memory histogram has no shared atomics: the shared unit is idle (U = 0); its
  // class comes from the L2 unit (ReportL2 below).
  const auto& naive = kernel(r, "naive_global-single");
  EXPECT_EQ(naive.analysis.shared_unit_class, model::UtilizationClass::kNotAtomicBound);
  EXPECT_EQ(naive.analysis.utilization.mean, 0.0);

  // The kernel without atomics (launched directly and as a graph's node) is never reported as
  // atomic-bound.
  int copies = 0;
  for (const auto& k : r.kernels)
    if (k.label.rfind("multi_kernel_app/no_atomics", 0) == 0) {
      ++copies;
      EXPECT_EQ(k.analysis.utilization_class, model::UtilizationClass::kNotAtomicBound) << k.label;
    }
  EXPECT_EQ(copies, 2);

  // A what-if that can lose (its interval reaches below 1x) is never the fix a kernel's headline
  // names (the model's choice: Analysis.RecommendationSkipsAWhatIfThatCanLose), and the fix named
  // is the analysis' own recommendation.
  for (const auto& k : r.kernels) {
    if (k.best_what_if) EXPECT_GE(k.best_what_if->interval.low, 1.0) << k.label;
    const model::WhatIf* recommended = k.analysis.recommended_what_if();
    ASSERT_EQ(k.best_what_if.has_value(), recommended != nullptr) << k.label;
    if (recommended) EXPECT_EQ(k.best_what_if->change, recommended->change) << k.label;
  }
  EXPECT_EQ(r.service_curve_lanes, 32);
  EXPECT_GE(r.service_curves.size(), 5u);
  for (const auto& c : r.service_curves) EXPECT_EQ(c.points.size(), 10u) << c.name;
}

TEST(Report, ComparesRequestedPairsAndDefaultsToTheFirstTwo) {
  ReportRequest request = recorded_request();
  Report r = build_report(request);
  ASSERT_EQ(r.comparisons.size(), 1u);
  EXPECT_EQ(r.comparisons[0].label_a, "naive_global-single");
  EXPECT_EQ(r.comparisons[0].label_b, "block_private-single");

  request.pairs = {{"multi_kernel_app/add_conflict32", "multi_kernel_app/popc_distinct"}};
  r = build_report(request);
  ASSERT_EQ(r.comparisons.size(), 1u);
  const auto& c = r.comparisons[0].result;
  EXPECT_FALSE(c.rows.empty());
  // The summary speaks of the report's labels, not the full kernel names.
  EXPECT_NE(c.summary.find("multi_kernel_app/add_conflict32"), std::string::npos) << c.summary;
  EXPECT_EQ(c.summary.find("(unsigned int*)"), std::string::npos) << c.summary;
  ASSERT_TRUE(r.comparisons[0].duration_a_ns && r.comparisons[0].duration_b_ns);

  request.pairs = {{"no_such_kernel", "naive_global-single"}};
  try {
    build_report(request);
    FAIL();
  } catch (const ReportError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no_such_kernel"), std::string::npos);
    EXPECT_NE(what.find("lane_replicated-uniform"), std::string::npos) << "lists the labels there are";
  }
}

TEST(Report, CompareMatchesKernelsByNameAgainstTheBaseline) {
  ReportRequest request = recorded_request();
  request.runs = {load_run_document(recorded("hist/block_private-uniform.json"))};
  request.baseline_runs = {load_run_document(recorded("hist/block_private-single.json"))};
  Report r = build_report(request);
  ASSERT_EQ(r.comparisons.size(), 1u);
  EXPECT_EQ(r.comparisons[0].label_a, "block_private-single");
  EXPECT_EQ(r.comparisons[0].label_b, "block_private-uniform");
  EXPECT_TRUE(r.unmatched.empty());

  request.baseline_runs = {load_run_document(recorded("hist/naive_global-single.json"))};
  r = build_report(request);
  EXPECT_TRUE(r.comparisons.empty());
  EXPECT_EQ(r.unmatched.size(), 2u);
}

TEST(Report, NoKernelsIsAnError) {
  ReportRequest request = recorded_request();
  request.runs.clear();
  EXPECT_THROW(build_report(request), ReportError);
}

TEST(ReportMarkdown, PlainTablesWithEveryKernelAndItsClass) {
  ReportRequest request = recorded_request();
  request.notes = {"replayed"};
  const Report r = build_report(request);
  const std::string md = render_markdown(r);
  EXPECT_EQ(md.rfind("# atomq bottleneck report\n", 0), 0u);
  EXPECT_NE(md.find("> replayed"), std::string::npos);
  for (const auto& k : r.kernels) {
    const std::string row = "| " + k.label + " |";
    const auto at = md.find(row);
    ASSERT_NE(at, std::string::npos) << k.label;
    const std::string line = md.substr(at, md.find('\n', at) - at);
    EXPECT_NE(line.find("| " + enum_name(k.analysis.utilization_class) + " |"), std::string::npos) << line;
  }
  const auto conflict = md.find("| multi_kernel_app/add_conflict32 |");
  const std::string line = md.substr(conflict, md.find('\n', conflict) - conflict);
  EXPECT_NE(line.find("| severe |"), std::string::npos) << line;
  EXPECT_NE(md.find("| replicate "), std::string::npos) << "the replication what-if row";
  EXPECT_NE(md.find("Recommendation: "), std::string::npos);
  EXPECT_NE(md.find("## Service time S(n) of the table (e = 32"), std::string::npos);
  EXPECT_NE(md.find("## Comparisons"), std::string::npos);
  // No HTML: the only '<' are in C++ kernel names (inside backticks).
  EXPECT_EQ(std::regex_search(md, std::regex("<(table|div|br|p|span)[ >]")), false);
}

// A graph launch profiled as one range says so where the kernel is shown and in the runs list.
TEST(ReportMarkdown, WholeGraphProfilesAndGraphLaunchCountsAreNamed) {
  ReportRequest request = recorded_request();
  auto& run = request.runs.front();
  run.profiles.front().graph = model::GraphNodeTag{4, 0, 2, {"hist(int*)", "scale(int*)"}};
  run.info.launches.graph_launches_profiled = 10;
  run.info.launches.graph_launches = 2;
  run.info.launches.graph_note = "a graph launch cannot be repeated per profiling pass: it holds a host callback node";
  const std::string md = render_markdown(build_report(request));
  EXPECT_NE(md.find("CUDA graph launch 4, one range over its 2 kernel nodes"), std::string::npos);
  EXPECT_NE(md.find("10 CUDA graph launch(es) profiled, each as one range over all its kernel nodes"), std::string::npos);
  EXPECT_NE(md.find("2 graph launch(es) and 0 kernel node(s) NOT profiled: a graph launch cannot be repeated"),
            std::string::npos);
}

TEST(ReportFormat, FollowsTheFileName) {
  EXPECT_EQ(report_format_for_path("out/R.HTML"), ReportFormat::kHtml);
  EXPECT_EQ(report_format_for_path("r.md"), ReportFormat::kMarkdown);
  EXPECT_THROW(report_format_for_path("r.pdf"), ReportError);
}

TEST(ReportHtml, SelfContainedWithChartsAndTheirData) {
  if (!html_supported()) GTEST_SKIP() << "built without libjs-chart.js: HTML is refused (see ReportHtml test below)";
  const Report r = build_report(recorded_request());
  const std::string page = render_html(r);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(page.find("<script src"), std::string::npos) << "no external script";
  EXPECT_EQ(page.find("<link"), std::string::npos) << "no external style";
  EXPECT_NE(page.find("Chart.js v3"), std::string::npos) << "the library is inlined";
  std::smatch m;
  const std::string marker = "<script type=\"application/json\" id=\"atomq-report-data\">";
  const auto start = page.find(marker);
  ASSERT_NE(start, std::string::npos);
  const auto end = page.find("</script>", start);
  std::string data_text = page.substr(start + marker.size(), end - start - marker.size());
  for (auto pos = data_text.find("<\\/"); pos != std::string::npos; pos = data_text.find("<\\/")) data_text.replace(pos, 3, "</");
  const auto data = nlohmann::json::parse(data_text);
  EXPECT_EQ(data["kernels"].size(), 24u);
  EXPECT_GE(data["curves"].size(), 5u);
  EXPECT_EQ(data["comparisons"].size(), 1u);
  // utilization, what-if, one comparison, the S(n) curves.
  size_t canvases = 0;
  for (auto pos = page.find("data-atomq-chart=\""); pos != std::string::npos; pos = page.find("data-atomq-chart=\"", pos + 1))
    ++canvases;
  EXPECT_EQ(canvases, 4u);
}

// A global-atomic kernel on one hot address (the H200's naive_global on a one-value input):
// the report shows both queues and names the L2 slices as the binding unit.
ReportRequest hot_address_request() {
  ReportRequest request = recorded_request();
  request.table.l2 = test::make_synthetic_l2_section();
  model::KernelProfile p = request.runs.front().profiles.front();
  p.kernel_name = "naive_global_hot";
  test::L2Spec l2;
  l2.red = 100.6e6;
  l2.red_hottest = 99.0e6;
  l2.elapsed_cycles = 50.2e6 * 1.98;
  l2.busy_fraction = 0.9;
  l2.warp_instructions = 2097152;
  test::add_l2_counters(p, l2);
  p.counters[model::metric::kDurationNs] = 50.2e6;
  p.global_atomic_op = GlobalAtomicOp::kRedAddU32;
  RunDocument run = request.runs.front();
  run.label = "hot";
  run.profiles = {p};
  request.runs = {run};
  return request;
}

TEST(ReportL2, BothQueuesAndTheBindingUnitInEveryRendering) {
  const Report r = build_report(hot_address_request());
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& a = r.kernels[0].analysis;
  EXPECT_EQ(a.binding_unit, model::BindingUnit::kL2AtomicUnit);
  const std::string units = atomic_units_summary(a);
  EXPECT_NE(units.find("SM atomic U 0%"), std::string::npos) << units;
  EXPECT_NE(units.find("L2 hottest slice U 100% (one hot address, red.add.u32)"), std::string::npos) << units;

  const std::string terminal = render_terminal_summary(r);
  EXPECT_NE(terminal.find("Severe L2 atomic bottleneck: one hot address"), std::string::npos) << terminal;
  EXPECT_NE(terminal.find(units + "; binds: l2_atomic_unit"), std::string::npos) << terminal;
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("| 100% | l2_atomic_unit | severe |"), std::string::npos) << "summary row: L2 U, binds, class";
  EXPECT_NE(md.find("(`l2_hot_address`)"), std::string::npos);
  EXPECT_NE(md.find("- basis of \"privatize"), std::string::npos) << "what-ifs carry their basis";
  if (html_supported()) {
    const std::string page = render_html(r);
    EXPECT_NE(page.find("l2_atomic_unit"), std::string::npos);
    EXPECT_NE(page.find("\"l2_u\":"), std::string::npos);
  }
}

// The demo's recordings hold the L2 counters (re-recorded 2026-12-02): the one-value global
// histogram, most of the replayed GPU time, binds on the L2 unit, severe, with its finding.
TEST(ReportL2, TheDemosGlobalHistogramOnOneValueIsSevereOnTheL2Unit) {
  const Report r = build_report(recorded_request());
  const auto& naive = kernel(r, "naive_global-single");
  ASSERT_TRUE(naive.analysis.l2.evaluated) << naive.analysis.l2.not_evaluated_reason;
  EXPECT_EQ(naive.analysis.binding_unit, model::BindingUnit::kL2AtomicUnit);
  EXPECT_EQ(naive.analysis.utilization_class, model::UtilizationClass::kSevere);
  EXPECT_NE(naive.analysis.find(model::FindingKind::kL2HotAddress), nullptr);
}

TEST(ReportHtml, RefusedWithoutThePlottingLibrary) {
  if (html_supported()) GTEST_SKIP() << "this build embeds Chart.js";
  EXPECT_THROW(render_html(build_report(recorded_request())), ReportError);
}

TEST(KernelNames, NcuAndDemanglerSpellingsNormalizeAlike) {
  EXPECT_EQ(normalized_kernel_name("no_atomics(const float *, float *, int)"),
            normalized_kernel_name("no_atomics(float const*, float*, int)"));
  EXPECT_EQ(normalized_kernel_name("popc_distinct(unsigned int *)"), normalized_kernel_name("popc_distinct(unsigned int*)"));
  EXPECT_EQ(normalized_kernel_name("void ns::k<unsigned char, true>(ns::Args)"),
            normalized_kernel_name("ns::k<unsigned char, true>(ns::Args)"));
  EXPECT_NE(normalized_kernel_name("k(int*)"), normalized_kernel_name("k(float*)"));
  EXPECT_NE(normalized_kernel_name("k<1>(int)"), normalized_kernel_name("k<2>(int)"));
}

// The headline's rule checked from outside: the first line names the kernel whose launches'
// best what-ifs save the most time, and the slowest kernel is always among the lines.
void expect_headlines_rank_by_time_at_stake(const Report& r) {
  std::map<std::string, double> stake, time;
  for (const auto& k : r.kernels) {
    const std::string name = std::regex_replace(k.label, std::regex("#[0-9]+$"), "");
    time[name] += k.duration_ns.value_or(0.0);
    if (k.duration_ns && k.best_what_if && k.best_what_if->speedup > 1)
      stake[name] += *k.duration_ns * (1 - 1 / k.best_what_if->speedup);
  }
  ASSERT_FALSE(r.headlines.empty());
  const auto by_value = [](const auto& a, const auto& b) { return a.second < b.second; };
  if (!stake.empty()) {
    const std::string top = std::max_element(stake.begin(), stake.end(), by_value)->first;
    EXPECT_EQ(r.headlines.front().rfind(top + ": ", 0), 0u) << r.headlines.front();
  }
  const std::string slowest = std::max_element(time.begin(), time.end(), by_value)->first;
  EXPECT_TRUE(std::any_of(r.headlines.begin(), r.headlines.end(),
                          [&](const std::string& h) { return h.rfind(slowest + ": ", 0) == 0; }))
      << slowest;
  for (const auto& h : r.headlines) EXPECT_EQ(h.find("Nothing to change"), std::string::npos) << h;
}

TEST(Report, HeadlinesOfTheDemoRecordedRunsRankByTimeAtStake) {
  expect_headlines_rank_by_time_at_stake(build_report(recorded_request()));
}

// The recorded runs of the model's tests (global atomics with L2 counters, CAS loops):
// the L2-bound one-value histogram is the slowest kernel and the one with the most at stake.
// The model tests' recorded runs (tests/unit/model/fixtures/), one run per fixture.
ReportRequest model_fixture_request() {
  ReportRequest request = recorded_request();
  request.runs.clear();
  for (const auto& entry : std::filesystem::directory_iterator(ATOMQ_MODEL_FIXTURE_DIR)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const auto doc = nlohmann::json::parse(in);
    RunDocument run;
    run.label = entry.path().stem().string();
    run.profiles.push_back(model::kernel_profile_from_json(doc.at("profile"), entry.path().string()));
    request.runs.push_back(std::move(run));
  }
  return request;
}

TEST(Report, HeadlinesOfTheModelsRecordedRunsRankByTimeAtStake) {
  const ReportRequest request = model_fixture_request();
  ASSERT_GE(request.runs.size(), 15u);
  const Report r = build_report(request);
  expect_headlines_rank_by_time_at_stake(r);
  EXPECT_EQ(r.headlines.front().rfind("hist-naive_global-u32-single: ", 0), 0u) << r.headlines.front();
  EXPECT_NE(r.headlines.front().find("binds: the L2 atomic unit"), std::string::npos) << r.headlines.front();
}

// Launches of one kernel with different inputs: the slowest may have no what-if while a
// shorter one has (the threshold sweep's points). The headline takes the launch with the most
// at stake (it read the slowest launch's missing what-if before).
TEST(Report, HeadlineOfAKernelWhoseSlowestLaunchHasNoWhatIf) {
  ReportRequest request = recorded_request();
  RunDocument run = load_run_document(recorded("hist/rank_shared-single.json"));
  model::KernelProfile slow = run.profiles.at(0);
  for (const char* c : {"gpu__time_duration.sum", "sm__cycles_active.sum", "sm__cycles_active.avg", "sm__cycles_active.max"})
    slow.counters[c] *= 20;  // the same atomics over 20x the time: U near 5%, nothing to gain
  run.profiles.push_back(slow);
  request.runs = {run};
  const Report r = build_report(request);
  ASSERT_FALSE(r.headlines.empty());
  EXPECT_NE(r.headlines.front().find("2 launches"), std::string::npos) << r.headlines.front();
  EXPECT_NE(r.headlines.front().find("fix: "), std::string::npos) << r.headlines.front();
}

// A what-if that changes nothing is not proposed: none predicts a service time of 0, or a
// utilization of 0 while atomics remain (one copy per warp did, "S 0 cycles, U 0%", on every
// shared-atomic kernel of the demo; a change that removes every atomic, e.g. load before CAS on an
// all-CAS stream at its high end, leaves the unit idle), and one copy per warp is proposed only
// where it can gain.
TEST(Report, NoWhatIfThatChangesNothing) {
  for (const ReportRequest& request : {recorded_request(), model_fixture_request()}) {
    const Report r = build_report(request);
    for (const auto& k : r.kernels)
      for (const auto& f : k.analysis.findings)
        for (const auto& w : f.what_ifs) {
          SCOPED_TRACE(k.label + ": " + w.change);
          EXPECT_GT(w.service_cycles, 0.0);
          if (w.instructions > 0) EXPECT_GT(w.predicted_utilization, 0.0);
          if (w.id == model::WhatIfId::kReplicatePerWarp) EXPECT_GT(w.gain_high(), 1.0);
        }
  }
}

// A headline that sends the reader to the findings below ("the findings below say why") has at
// least one: the demo's saturated conflict-free kernels (popc_distinct, cooperative) had none.
TEST(Report, EveryHeadlineThatPointsToFindingsHasOne) {
  for (const ReportRequest& request : {recorded_request(), model_fixture_request()}) {
    const Report r = build_report(request);
    const std::string md = render_markdown(r);
    for (const auto& k : r.kernels) {
      const model::Finding* head = k.analysis.find(model::FindingKind::kUtilization);
      if (!head || head->recommendation.find(" below ") == std::string::npos) continue;
      SCOPED_TRACE(k.label + ": " + head->title);
      ASSERT_GE(k.analysis.findings.size(), 2u);
      // In the Markdown the kernel's section shows the headline, then another finding.
      const auto section = md.find("### " + k.label + "\n");
      ASSERT_NE(section, std::string::npos);
      const auto headline = md.find("**" + head->title + "**", section);
      ASSERT_NE(headline, std::string::npos);
      const auto next_section = md.find("\n### ", headline);
      const auto next_finding = md.find("\n**", headline + 2);
      EXPECT_LT(next_finding, next_section) << "no finding follows the headline";
    }
  }
}

// "1.26x to 14.3x" as the headline gives it, or one figure where the two ends meet (the
// renderers' rule, report_format.cpp), computed here from the what-if's own ends.
std::string expected_gain(const model::WhatIf& w) {
  const auto text = [](double x) {
    return x >= 100 ? fmt::format("{:.0f}x", x) : x >= 10 ? fmt::format("{:.1f}x", x) : fmt::format("{:.2f}x", x);
  };
  const double low = w.gain_low(), high = w.gain_high();
  return std::fabs(high - low) <= 0.005 * high ? text(high) : text(low) + " to " + text(high);
}

// The rows of a Markdown, terminal or CSV table that start with `start`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& start) {
  std::vector<std::string> out;
  for (auto at = text.find("\n" + start); at != std::string::npos; at = text.find("\n" + start, at + 1))
    out.push_back(text.substr(at + 1, text.find_first_of("\r\n", at + 1) - at - 1));
  return out;
}

// The recommended what-if's expected gain is the same figure(s) in the headline, the terminal
// table, the Markdown and HTML tables and the CSV / JSON export: the analysis' interval, not the
// no-overlap end alone (the tables and exports showed "14.3x" where the headline said "1.26x to
// 14.3x").
TEST(Report, EveryOutputShowsTheRecommendedWhatIfsGain) {
  const Report r = build_report(recorded_request());
  const std::string terminal = render_terminal_summary(r), md = render_markdown(r);
  const nlohmann::json exported = nlohmann::json::parse(render_summary_json(r));
  const std::string csv = render_summary_csv(r);
  const std::string page = html_supported() ? render_html(r) : "";
  bool interval_seen = false;
  for (const auto& s : r.summaries) {
    const ReportKernel& k = r.kernels[s.slowest];
    SCOPED_TRACE(s.name);
    const model::WhatIf* w = k.analysis.recommended_what_if();
    ASSERT_EQ(w != nullptr, k.best_what_if.has_value());
    if (!w) continue;
    const std::string gain = expected_gain(*w);
    interval_seen |= gain.find(" to ") != std::string::npos;
    const auto terminal_rows = lines_starting(terminal, s.name + " ");  // the table's row, then comparisons
    ASSERT_FALSE(terminal_rows.empty()) << terminal;
    EXPECT_NE(terminal_rows.front().find(" " + gain + " "), std::string::npos) << terminal_rows.front();
    // The ranked table's row and the launches table's row both end with the what-if and its gain.
    const auto md_rows = lines_starting(md, "| " + k.label + " | ");
    ASSERT_EQ(md_rows.size(), 2u) << k.label;
    for (const auto& row : md_rows)
      EXPECT_NE(row.find("| " + w->change + " | " + gain + " |"), std::string::npos) << row;
    for (const auto& h : r.headlines)
      if (h.rfind(s.name + ": ", 0) == 0 && h.find("fix: ") != std::string::npos)
        EXPECT_NE(h.find("predicted " + gain + " faster"), std::string::npos) << h;
    for (const auto& row : exported["kernels"])
      if (row["kernel"] == s.name) {
        EXPECT_EQ(row["best_what_if_id"], enum_name(w->id));
        EXPECT_DOUBLE_EQ(row["predicted_gain_low"].get<double>(), w->gain_low());
        EXPECT_DOUBLE_EQ(row["predicted_gain_high"].get<double>(), w->gain_high());
      }
    const auto csv_rows = lines_starting(csv, k.run_label + "," + s.name + ",");
    ASSERT_EQ(csv_rows.size(), 1u) << csv;
    EXPECT_NE(csv_rows[0].find(fmt::format(",{},", enum_name(w->id))), std::string::npos) << csv_rows[0];
    if (!page.empty()) EXPECT_NE(page.find("<td>" + gain + "</td>"), std::string::npos) << gain;
  }
  EXPECT_TRUE(interval_seen) << "a recorded kernel whose gain is an interval (rank_shared-single)";
  // The CSV's columns are the JSON export's, the low and high ends among them.
  const std::string header = csv.substr(0, csv.find('\r'));
  EXPECT_NE(header.find(",predicted_gain_low,predicted_gain_high,"), std::string::npos) << header;
}

// A kernel may be named anything: "<!--<script>" in the HTML data block stopped every chart,
// and backticks or HTML in Markdown ended code spans or passed through.
TEST(Report, HostileKernelNamesStayInsideTheirText) {
  ReportRequest request = recorded_request();
  request.runs.resize(1);
  request.runs[0].label = "run`<b>";
  request.runs[0].profiles[0].kernel_name = "k<!--<script>alert(1)</script>`x`(int)";
  const Report r = build_report(request);
  const std::string page = render_html(r);
  const std::string marker = "<script type=\"application/json\" id=\"atomq-report-data\">";
  const auto start = page.find(marker) + marker.size();
  const std::string data = page.substr(start, page.find("</script>", start) - start);
  EXPECT_EQ(data.find('<'), std::string::npos) << data.substr(0, 300);
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(data)["kernels"][0]["label"], "run`<b>");
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("- kernel: ``k<!--<script>alert(1)</script>`x`(int)``"), std::string::npos);
  // Outside that code span the names' "<" and backticks are escaped.
  std::string outside = md;
  for (auto at = outside.find("``k<!--"); at != std::string::npos; at = outside.find("``k<!--"))
    outside.erase(at, outside.find("``", at + 2) + 2 - at);
  for (const char* raw : {"(^|[^\\\\])<b>", "(^|[^\\\\])<!--", "(^|[^\\\\])`<", "(^|[^\\\\])`x"})
    EXPECT_FALSE(std::regex_search(outside, std::regex(raw))) << raw;
}

// Runs whose files share a name are two runs: before/app.json and after/app.json were merged
// (twice the launches per kernel, summed times, the median of the two runs).
TEST(Report, RunsWhoseFilesShareANameStayApart) {
  ReportRequest request = recorded_request();
  const std::string text = read_text_file(recorded("multi_kernel_app.json"));
  request.runs = {run::parse_run_document(text, "/data/before/app.json"),
                  run::parse_run_document(text, "/data/after/app.json")};
  ReportRequest one = request;
  one.runs.resize(1);
  const Report single = build_report(one);
  const Report both = build_report(request);
  ASSERT_EQ(both.summaries.size(), 2 * single.summaries.size());
  ASSERT_EQ(both.kernels.size(), 2 * single.kernels.size());
  for (const auto& s : both.summaries) {
    EXPECT_TRUE(s.run_label == "before/app" || s.run_label == "after/app") << s.run_label;
    const auto same = std::find_if(single.summaries.begin(), single.summaries.end(),
                                   [&](const KernelSummary& k) { return k.kernel == s.kernel; });
    ASSERT_NE(same, single.summaries.end());
    EXPECT_EQ(s.launches.size(), same->launches.size()) << s.run_label << " " << s.name;
    EXPECT_EQ(s.total_ns, same->total_ns) << s.run_label << " " << s.name;
  }
  // The same file given twice: two runs still, numbered.
  request.runs = {run::parse_run_document(text, "/data/app.json"), run::parse_run_document(text, "/data/app.json")};
  const Report twice = build_report(request);
  EXPECT_EQ(twice.summaries.size(), 2 * single.summaries.size());
  std::set<std::string> labels;
  for (const auto& s : twice.summaries) labels.insert(s.run_label);
  EXPECT_EQ(labels, (std::set<std::string>{"app#1", "app#2"}));
}

// Hostile text in every field that comes from an input: the kernel and run names, the title,
// the notes, the table's provenance and path.
Report hostile_report(const std::string& name) {
  ReportRequest request = recorded_request();
  request.runs.resize(1);
  request.runs[0].label = name;
  for (auto& p : request.runs[0].profiles) p.kernel_name = name + "(int)";
  request.title = name;
  request.notes = {name};
  request.table_path = "/t/" + name + ".json";
  request.table_origin = "explicit";
  request.table.provenance.device.name = name;
  request.table.provenance.grid_name = name;
  request.table.provenance.driver_release = name;
  request.table.provenance.created_utc = name;
  request.table.provenance.atomq_commit = name;
  return build_report(request);
}

// Characters of `md` that Markdown reads as markup: not after an odd number of backslashes,
// not inside a code span.
std::string unescaped_markup(const std::string& md) {
  std::string found;
  for (size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '\\') {
      ++i;  // the next character is literal
      continue;
    }
    if (md[i] == '`') {  // a code span: skip to the fence of the same length
      size_t fence = 0;
      while (i + fence < md.size() && md[i + fence] == '`') ++fence;
      const size_t end = md.find(std::string(fence, '`'), i + fence);
      if (end != std::string::npos) i = end + fence - 1;
      continue;
    }
    if (std::strchr("<[]&", md[i]) != nullptr || (static_cast<unsigned char>(md[i]) < 0x20 && md[i] != '\n'))
      found += md[i];
  }
  return found;
}

TEST(ReportMarkdown, EveryFieldIsEscapedBackslashesIncluded) {
  for (const std::string name : {"x\\<img src=x onerror=alert(1)>", "[a](javascript:alert(1))", "<b>|\\\\`",
                                 "a&lt;b\n# h", "\x1b]52;c;ZXZpbA==\x07"}) {
    const std::string md = render_markdown(hostile_report(name));
    EXPECT_EQ(unescaped_markup(md), "") << name;
    EXPECT_EQ(md.find('\x1b'), std::string::npos) << name;
  }
  // What the escapes render as is the name itself: "\\" for a backslash, "\<" for "<".
  const std::string md = render_markdown(hostile_report("a\\<b"));
  EXPECT_NE(md.find("# a\\\\\\<b\n"), std::string::npos) << md.substr(0, 80);
}

// An OSC 52 clipboard write, a CSI colour, an 8-bit CSI and DEL in a kernel name: shown as
// escapes, never sent to the terminal.
TEST(ReportTerminal, ControlCharactersInNamesAreShownAsEscapes) {
  const std::string name = "k\x1b]52;c;ZXZpbA==\x07\x1b[31m\xc2\x9b" "2J\x7f\x9b";
  const std::string out = render_terminal_summary(hostile_report(name));
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(out[i]);
    EXPECT_TRUE(ch == '\n' || (ch >= 0x20 && ch != 0x7f)) << "byte " << int(ch) << " at " << i;
    if (ch == 0xc2 && i + 1 < out.size()) EXPECT_GE(static_cast<unsigned char>(out[i + 1]), 0xa0) << "C1 at " << i;
  }
  EXPECT_NE(out.find("k\\x1b]52;c;ZXZpbA==\\x07\\x1b[31m\\u009b2J\\x7f\\x9b"), std::string::npos) << out;
  EXPECT_EQ(terminal_text("n\xcc\x82 µs ✓"), "n\xcc\x82 µs ✓");  // printable UTF-8 kept
}

// The fields of the first data row of a CSV (RFC 4180 quoting undone).
std::vector<std::string> first_csv_row(const std::string& csv) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = csv.find("\r\n") + 2; i < csv.size(); ++i) {
    const char ch = csv[i];
    if (quoted && ch == '"' && i + 1 < csv.size() && csv[i + 1] == '"') fields.back() += csv[++i];
    else if (ch == '"') quoted = !quoted;
    else if (!quoted && ch == ',') fields.emplace_back();
    else if (!quoted && ch == '\r') break;
    else fields.back() += ch;
  }
  return fields;
}

// Formula injection: a text field starting with = + - @ (or a tab, a carriage return) is
// neutralized with a leading '; number columns stay numbers.
TEST(ReportCsv, FieldsThatASpreadsheetReadsAsFormulasAreNeutralized) {
  for (const std::string name : {"=HYPERLINK(\"http://x\",\"y\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
                                 "\tx", "\rx"}) {
    const std::string csv = render_summary_csv(hostile_report(name));
    const std::vector<std::string> fields = first_csv_row(csv);
    ASSERT_GE(fields.size(), 3u);
    EXPECT_EQ(fields[0], "'" + name);  // run
    for (size_t i : {1, 2}) EXPECT_EQ(fields[i].substr(0, 1), "'") << fields[i];  // kernel, kernel_name
  }
  const std::string csv = render_summary_csv(hostile_report("plain"));
  const std::string row = csv.substr(csv.find("\r\n") + 2);
  EXPECT_TRUE(std::regex_search(row, std::regex(",[0-9]+,[0-9.e+-]+,"))) << row;  // launches, total time
}

TEST(ReportFormat, LargeTimesKeepTheirSign) {
  EXPECT_EQ(duration_text(1e25), "1e+22 µs");
  EXPECT_EQ(duration_text(9.2e21), "9.2e+18 µs");
  EXPECT_EQ(duration_text(2.5e9), "2,500,000 µs");
}

// A kernel whose atomics go to a cluster peer's shared memory: its headline names the path the
// model has no queue for (a table without the DSMEM section), not "no atomic change is predicted
// to pay"; with the section, the path's U and that it binds. The recorded no_atomics launch of
// multi_kernel_app with the DSMEM requests of paths_app's peer_histogram added (135168 warp
// requests at the bundled table's S of over 100 SM cycles: more than the kernel's cycles).
TEST(Report, AKernelOnAnUnmodelledPathSaysSoInItsHeadline) {
  ReportRequest request = recorded_request();
  request.table.dsmem = {};
  request.runs.clear();
  std::ifstream in(std::filesystem::path(ATOMQ_MODEL_FIXTURE_DIR) / "multi_kernel_app-no_atomics.json");
  const auto doc = nlohmann::json::parse(in);
  RunDocument run;
  run.label = "peer";
  model::KernelProfile p = model::kernel_profile_from_json(doc.at("profile"), "multi_kernel_app-no_atomics.json");
  p.counters[model::metric::kDsmemAtomRequests] = 135168;
  run.profiles.push_back(std::move(p));
  request.runs.push_back(std::move(run));
  const Report r = build_report(request);
  ASSERT_FALSE(r.headlines.empty());
  EXPECT_NE(r.headlines.front().find("DSMEM atomics: not modelled (insufficient_data): atomics on a cluster peer's"),
            std::string::npos)
      << r.headlines.front();
  request.table = recorded_request().table;
  ASSERT_FALSE(request.table.dsmem.empty()) << "the bundled table has a DSMEM section";
  const Report with_section = build_report(request);
  EXPECT_NE(with_section.headlines.front().find("binds: the SM's DSMEM path to its cluster peers (severe): DSMEM "
                                                "atomics: the SM's request path to its cluster peers at U "),
            std::string::npos)
      << with_section.headlines.front();
}

}  // namespace
}  // namespace atomq::report
