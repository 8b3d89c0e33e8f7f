// Every committed recording made by atomq's collector holds every counter the collector reads
// today: a recording that lacks one is stale (its verdicts rest on rules for missing counters),
// and must be made again on a GPU (tools/record_fixtures.sh, tools/validation_run.sh,
// tools/third_party_run.sh), then turned into fixtures by tools/apply_recordings.sh (the fixture
// READMEs say what each holds).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "atomq/analyzer/metric_list.hpp"

namespace fs = std::filesystem;

namespace {

// The profiles of a recording: a run document's kernels, or a fixture's one profile.
std::vector<nlohmann::json> profiles_of(const nlohmann::json& doc) {
  std::vector<nlohmann::json> out;
  if (doc.contains("kernels") && doc["kernels"].is_array())
    for (const auto& k : doc["kernels"])
      if (k.contains("profile")) out.push_back(k["profile"]);
  if (doc.contains("profile")) out.push_back(doc["profile"]);
  return out;
}

std::vector<fs::path> recordings() {
  const fs::path root = ATOMQ_SOURCE_DIR;
  std::vector<fs::path> files;
  for (const char* dir : {"tests/fixtures/validation", "tests/unit/model/fixtures", "analyzer/report/recorded"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() != ".json" || name == "manifest.json" || name == "expectations.json" ||
          name.find(".timings.") != std::string::npos || name.find(".result.") != std::string::npos)
        continue;
      files.push_back(e.path());
    }
  return files;
}

}  // namespace

TEST(Recordings, HoldEveryCounterTheCollectorReadsToday) {
  const std::vector<std::string> metrics = atomq::analyzer::atomq_metric_names();
  int checked = 0;
  for (const fs::path& file : recordings()) {
    std::ifstream in(file);
    const nlohmann::json doc = nlohmann::json::parse(in);
    for (const nlohmann::json& profile : profiles_of(doc)) {
      const std::string kind = profile.value("/source/kind"_json_pointer, std::string());
      if (kind != "in_process" && kind != "injected") continue;  // ncu exports read what ncu wrote
      ++checked;
      const auto& counters = profile.at("counters");
      // A kernel node of a graph launch gets no SASS-patched counters: they read 0 over the
      // user range around a graph launch, so the collector leaves them out (kernel_profiler.cpp).
      const bool graph_node = profile.value("/source/detail"_json_pointer, std::string()).rfind("graph launch", 0) == 0;
      std::string missing;
      for (const std::string& m : metrics)
        if (!counters.contains(m) && !(graph_node && m.find("__sass_") != std::string::npos)) missing += " " + m;
      EXPECT_TRUE(missing.empty()) << file.string() << " (" << profile.value("/kernel/name"_json_pointer, std::string())
                                   << ") lacks:" << missing;
    }
  }
  EXPECT_GT(checked, 20);
}
