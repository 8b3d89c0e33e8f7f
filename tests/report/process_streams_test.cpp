// The profile streams of a program's processes (atomq/run_document/process_streams.hpp): the
// rank from the launchers' variables, the names of the streams, finding and removing them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "atomq/run_document/process_streams.hpp"

namespace atomq::run {
namespace {

namespace fs = std::filesystem;

model::ProcessTag process_with(const std::map<std::string, std::string>& variables) {
  return this_process([&](const char* name) -> const char* {
    const auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  });
}

TEST(ProcessStreams, RankComesFromTheMostGlobalVariableThatHoldsAWholeNumber) {
  EXPECT_FALSE(process_with({}).rank.has_value());
  EXPECT_EQ(process_with({}).pid, static_cast<long long>(getpid()));
  const auto torchrun = process_with({{"RANK", "3"}, {"LOCAL_RANK", "1"}});
  EXPECT_EQ(torchrun.rank, 3);
  EXPECT_EQ(torchrun.rank_variable, "RANK");
  EXPECT_EQ(process_with({{"OMPI_COMM_WORLD_RANK", "5"}}).rank_variable, "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(process_with({{"SLURM_PROCID", "2"}, {"LOCAL_RANK", "0"}}).rank, 2);
  EXPECT_EQ(process_with({{"RANK", "x1"}, {"LOCAL_RANK", "4"}}).rank_variable, "LOCAL_RANK");
  EXPECT_FALSE(process_with({{"RANK", "-1"}}).rank.has_value());
  EXPECT_FALSE(process_with({{"RANK", "99999999999"}}).rank.has_value());
}

TEST(ProcessStreams, TheRootWritesTheBaseAndOthersWriteBesideItByRankOrPid) {
  const std::string base = "/tmp/run/out.json.profiles.jsonl";
  EXPECT_EQ(process_stream_path(base, model::ProcessTag{10, 1, "RANK"}, true), base);
  EXPECT_EQ(process_stream_path(base, model::ProcessTag{10, 1, "RANK"}, false), "/tmp/run/out.json.profiles.rank1.jsonl");
  EXPECT_EQ(process_stream_path(base, model::ProcessTag{10, std::nullopt, ""}, false),
            "/tmp/run/out.json.profiles.pid10.jsonl");
}

TEST(ProcessStreams, SiblingsAreFoundInRankThenPidOrderAndRemoved) {
  const fs::path dir = fs::temp_directory_path() / ("atomq-streams-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string base = (dir / "out.json.profiles.jsonl").string();
  for (const char* name : {"out.json.profiles.jsonl", "out.json.profiles.rank10.jsonl", "out.json.profiles.rank2.jsonl",
                           "out.json.profiles.pid77.jsonl", "out.json.profiles.rank2.pid5.jsonl",
                           "out.json.instructions-0.rank1.jsonl", "other.profiles.rank1.jsonl",
                           "out.json.profiles.rankX.jsonl"})
    std::ofstream(dir / name) << "\n";
  std::vector<std::string> names;
  for (const auto& p : sibling_streams(base)) names.push_back(fs::path(p).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"out.json.profiles.rank2.jsonl", "out.json.profiles.rank2.pid5.jsonl",
                                             "out.json.profiles.rank10.jsonl", "out.json.profiles.pid77.jsonl"}));
  remove_sibling_streams(base);
  EXPECT_TRUE(sibling_streams(base).empty());
  EXPECT_TRUE(fs::exists(base));  // the program's own stream is the caller's to replace
  EXPECT_TRUE(fs::exists(dir / "other.profiles.rank1.jsonl"));
  fs::remove_all(dir);
}

TEST(ProcessStreams, ASecondProcessOfOneRankGetsItsPidAdded) {
  const fs::path dir = fs::temp_directory_path() / ("atomq-claim-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string base = (dir / "run.profiles.jsonl").string();
  const std::string first = claim_process_stream(base, model::ProcessTag{100, 1, "RANK"}, false);
  const std::string second = claim_process_stream(base, model::ProcessTag{200, 1, "RANK"}, false);
  EXPECT_EQ(fs::path(first).filename(), "run.profiles.rank1.jsonl");
  EXPECT_EQ(fs::path(second).filename(), "run.profiles.rank1.pid200.jsonl");
  EXPECT_EQ(sibling_streams(base).size(), 2u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace atomq::run
