// Reading run documents for the report: the recorded runs load, and each kind of bad
// input is refused with the file and the field named.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "atomq/model/launch_sites.hpp"
#include "atomq/report/recorded.hpp"
#include "atomq/report/report.hpp"
#include "atomq/run_document/profile_stream.hpp"
#include "atomq/run_document/run_document.hpp"

namespace atomq::report {

using run::parse_run_document;
namespace {

using nlohmann::json;

std::string recorded(const std::string& name) { return std::string(ATOMQ_RECORDED_RUNS_DIR) + "/" + name; }

json valid_document() {
  std::ifstream in(recorded("hist/block_private-single.json"));
  return json::parse(in);
}

void expect_error_naming(const std::string& text, const std::vector<std::string>& fragments) {
  try {
    parse_run_document(text, "doc.json");
    FAIL() << "accepted: " << text.substr(0, 200);
  } catch (const RunDocumentError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("doc.json", 0), 0u) << what;
    for (const auto& f : fragments) EXPECT_NE(what.find(f), std::string::npos) << "missing \"" << f << "\" in: " << what;
  }
}

TEST(RunDocument, RecordedRunsLoadWithTheirProvenance) {
  const RecordedSet set = load_recorded_set(ATOMQ_RECORDED_RUNS_DIR);
  EXPECT_NE(set.provenance.find("H100"), std::string::npos);
  EXPECT_EQ(set.table_chip, "GH100");
  ASSERT_EQ(set.run_paths.size(), 14u);
  size_t kernels = 0;
  for (const auto& path : set.run_paths) {
    const RunDocument run = load_run_document(path);
    EXPECT_FALSE(run.profiles.empty()) << path;
    // The commit that recorded each file, as its README says (the build configured there).
    EXPECT_EQ(run.info.atomq_commit, "f3dd154be933-dirty") << path;
    for (const auto& p : run.profiles) EXPECT_EQ(p.device.chip, "GH100");
    kernels += run.profiles.size();
  }
  // 12 histogram runs, 7 profiled launches of the test program (no_atomics twice), 5 of sites_app
  EXPECT_EQ(kernels, 12u + 7u + 5u);
  const RunDocument hist = load_run_document(recorded("hist/naive_global-single.json"));
  EXPECT_EQ(hist.label, "naive_global-single");
  EXPECT_EQ(hist.info.source, "in_process");
}

TEST(RunDocument, RefusesWhatIsNotARunDocument) {
  expect_error_naming("{not json", {"not valid JSON"});
  expect_error_naming("[1, 2]", {"expected a JSON object"});
  expect_error_naming(R"({"format": "atomq.service_table", "version": 1})", {"'format'", "atomq.service_table", "atomq.analysis_run"});
  expect_error_naming(R"({"version": 1, "kernels": []})", {"'format'", "missing"});
}

TEST(RunDocument, RefusesAnotherVersion) {
  json doc = valid_document();
  doc["version"] = 2;
  expect_error_naming(doc.dump(), {"'version'", "2"});
  doc["version"] = "1";
  expect_error_naming(doc.dump(), {"'version'"});
}

TEST(RunDocument, NamesTheBadKernel) {
  json doc = valid_document();
  doc.erase("kernels");
  expect_error_naming(doc.dump(), {"'kernels'"});
  doc = valid_document();
  doc["kernels"][0].erase("profile");
  expect_error_naming(doc.dump(), {"kernels[0].profile", "missing"});
  doc = valid_document();
  doc["kernels"][0]["profile"]["version"] = 7;
  expect_error_naming(doc.dump(), {"kernels[0].profile", "version"});
}

TEST(RunDocument, MissingFileIsNamed) {
  try {
    load_run_document("/nonexistent/run.json");
    FAIL();
  } catch (const RunDocumentError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/run.json"), std::string::npos);
  }
}

// The collector's stream stays readable: a counter CUPTI could not evaluate (NaN) used to be
// written as null, which the reader refuses, losing every profile of the run.
TEST(ProfileStream, NonFiniteCountersAreDroppedAndAnUnreadableProfileIsNotWritten) {
  const std::string path = ::testing::TempDir() + "/atomq_stream_" + std::to_string(::getpid()) + ".jsonl";
  std::remove(path.c_str());
  model::KernelProfile p = model::kernel_profile_from_json(valid_document()["kernels"][0]["profile"], "doc.json");
  p.counters["gpu__time_duration.sum"] = std::nan("");
  {
    run::ProfileStreamWriter writer(path);
    writer.write(p);
    model::KernelProfile nameless = p;
    nameless.kernel_name.clear();
    EXPECT_THROW(writer.write(nameless), model::ProfileError);
  }
  const run::ProfileStream stream = run::read_profile_stream(path);
  ASSERT_EQ(stream.profiles.size(), 1u);
  EXPECT_FALSE(stream.profiles[0].counter("gpu__time_duration.sum").has_value());
  EXPECT_EQ(stream.profiles[0].counters.size(), p.counters.size() - 1);
  std::remove(path.c_str());
}

// The collector's stats message read with the library's value(): a wrong type escaped as
// nlohmann's type_error, which callers catching std::runtime_error missed.
TEST(ProfileStream, BadStatsMessageIsAProfileErrorNamingTheField) {
  EXPECT_EQ(run::stats_from_message(json{{"kind", "stats"}, {"launches_seen", 7}, {"passes", 3}}).launches_seen, 7);
  // The collector's own times (analyze -v's time budget) read back as written.
  run::SessionStats timed;
  timed.seconds_in_launches = 6.19;
  timed.seconds_configuring = 0.22;
  timed.seconds_keeping_code = 0.04;
  const run::SessionStats back = run::stats_from_message(run::stats_message(timed));
  EXPECT_DOUBLE_EQ(back.seconds_in_launches, 6.19);
  EXPECT_DOUBLE_EQ(back.seconds_configuring, 0.22);
  EXPECT_DOUBLE_EQ(back.seconds_keeping_code, 0.04);
  for (const json& bad : {json{{"launches_seen", "seven"}}, json{{"passes", -1}}, json{{"last_error", 5}},
                          json{{"seconds_in_launches", -1.0}}, json{{"seconds_configuring", "a while"}},
                          json::array({1, 2}), json{{"failed", 18446744073709551615ULL}}}) {
    try {
      run::stats_from_message(bad);
      ADD_FAILURE() << bad.dump() << " accepted";
    } catch (const model::ProfileError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("the collector's stats message", 0), 0u) << e.what();
    }
  }
}

// Two launches of one kernel, the per-instruction counts of the first: the document names the
// first measured and the second derived, and reading it back keeps which is which.
TEST(RunDocument, SaysWhichLaunchesThePerInstructionCountsMeasured) {
  std::vector<model::KernelProfile> profiles = load_run_document(recorded("hist/block_private-single.json")).profiles;
  ASSERT_FALSE(profiles.empty());
  profiles.resize(1);
  profiles[0].symbol = "_Z4histv";
  profiles.push_back(profiles[0]);
  profiles[0].symbol_launch = 0;
  profiles[1].symbol_launch = 1;
  model::InstructionProfile counts;
  counts.launches = 1;
  counts.records.push_back(model::InstructionRecord{0x80, "ATOMS.ADD", "", "", "", 10, 320, 10, 10});
  counts.has_listing = true;
  model::attach_instruction_counts(profiles, "_Z4histv", {{counts, std::nullopt}});
  const json doc = run::run_document_json(run::RunInfo{}, profiles, {});
  ASSERT_EQ(doc["instruction_counts"].size(), 1u);
  const json& entry = doc["instruction_counts"][0];
  EXPECT_EQ(entry["measured"], json::array({0}));
  EXPECT_EQ(entry["derived"], json::array({1}));
  EXPECT_EQ(entry["counted_launches"]["first"], 0);
  const RunDocument back = parse_run_document(doc.dump(), "doc.json");
  ASSERT_TRUE(back.profiles[1].instructions);
  EXPECT_EQ(back.profiles[0].instructions->basis, model::InstructionBasis::kMeasured);
  EXPECT_EQ(back.profiles[1].instructions->basis, model::InstructionBasis::kDerived);
  EXPECT_EQ(back.profiles[1].symbol_launch, 1);
}

// A per-instruction run's message says which process counted (its rank matches across runs);
// a message of an earlier build has none.
TEST(ProfileStream, InstructionsMessageCarriesItsProcess) {
  model::InstructionProfile counts;
  counts.launches = 1;
  const json with_rank = run::instructions_message("_Z1kv", counts, model::ProcessTag{42, 1, "RANK"});
  const run::InstructionsMessage m = run::instructions_from_message(with_rank, "stream");
  ASSERT_TRUE(m.process);
  EXPECT_EQ(m.process->pid, 42);
  EXPECT_EQ(m.process->rank, 1);
  EXPECT_FALSE(run::instructions_from_message(run::instructions_message("_Z1kv", counts), "stream").process);
  json bad = with_rank;
  bad["process"]["rank"] = "one";
  EXPECT_THROW(run::instructions_from_message(bad, "stream"), model::ProfileError);
}

}  // namespace
}  // namespace atomq::report
