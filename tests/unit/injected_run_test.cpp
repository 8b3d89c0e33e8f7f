// Running a program under the collector's environment, several side by side: each run gets
// its own collector variables and result, in order, and no more than `jobs` run at once.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "atomq/analyzer/injected_run.hpp"

namespace atomq::analyzer {
namespace {

namespace fs = std::filesystem;

// What the injected library reads from `environment` (read_collector_options' lookup).
std::function<const char*(const char*)> lookup_in(const Environment& environment) {
  return [&environment](const char* name) -> const char* {
    const auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  };
}

class SideBySide : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("atomq_side_by_side_" + std::to_string(getpid()));
    fs::create_directories(dir_);
    setenv(env::kInjectLib, "/nonexistent/libatomq_inject.so", 1);  // a shell loads no CUDA
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `count` shells, run i with instruction symbol "x" * (i + 1): each logs its start and
  // end to one file and exits with its symbol's length.
  std::vector<InjectedRun> run(int count, int jobs) {
    const std::string log = (dir_ / "log").string();
    const std::string script = "echo start >> " + log + "; sleep 0.4; echo end >> " + log +
                               "; exit ${#" + env::kInstructionSymbol + "}";
    std::vector<CollectorOptions> options(count);
    std::vector<std::string> streams;
    for (int i = 0; i < count; ++i) {
      options[i].instruction_symbol = std::string(i + 1, 'x');
      streams.push_back((dir_ / ("stream-" + std::to_string(i))).string());
    }
    return run_side_by_side({"sh", "-c", script}, options, streams, jobs);
  }

  // The most runs that were between their start and end at once.
  int most_at_once() const {
    std::ifstream in(dir_ / "log");
    int now = 0, most = 0;
    for (std::string line; std::getline(in, line);) {
      now += line == "start" ? 1 : -1;
      most = std::max(most, now);
    }
    return most;
  }

  fs::path dir_;
};

TEST_F(SideBySide, EachRunHasItsOwnVariablesAndResultInOrder) {
  const auto runs = run(5, 2);
  ASSERT_EQ(runs.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(runs[i].exec_error.empty());
    EXPECT_EQ(runs[i].exit_code, i + 1) << "run " << i;
    EXPECT_EQ(runs[i].info.program_exit_code, i + 1);
  }
}

TEST_F(SideBySide, NoMoreThanJobsRunAtOnce) {
  run(4, 2);
  EXPECT_EQ(most_at_once(), 2);
  fs::remove(dir_ / "log");
  run(3, 1);
  EXPECT_EQ(most_at_once(), 1);
}

TEST_F(SideBySide, AProgramThatCannotStartIsReportedForEveryRun) {
  std::vector<CollectorOptions> options(2);
  const auto runs = run_side_by_side({"/nonexistent/program"}, options,
                                     {(dir_ / "a").string(), (dir_ / "b").string()}, 2);
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& r : runs) {
    EXPECT_FALSE(r.exec_error.empty());
    EXPECT_EQ(r.exit_code, 127);
  }
}

// A per-instruction run beside a counters run: the first's output goes to its file, and the
// parent opens the GPU gate when it ends, so the second (here a shell waiting on the gate's
// file, as the collector does before its first profiled launch) goes on even though the first
// never opened it itself.
TEST_F(SideBySide, AnEndedPerInstructionRunOpensTheGateAndItsOutputGoesToItsFile) {
  const std::string gate = (dir_ / "gate").string(), output = (dir_ / "beside.log").string();
  CollectorOptions beside, counters;
  beside.instruction_kernel = "regex:hist";
  beside.gpu_gate = gate;
  counters.gpu_gate = gate;
  // The per-instruction side prints and ends; the counters side waits for the gate (at most 5 s).
  const std::string script = std::string("if [ -n \"$") + env::kInstructionKernel +
                             "\" ]; then echo beside-output; sleep 0.3; exit 0; fi; "
                             "i=0; while [ ! -e \"$" + env::kGpuGate + "\" ]; do i=$((i+1)); "
                             "[ $i -gt 500 ] && exit 9; sleep 0.01; done; exit 0";
  const auto runs = run_side_by_side({"sh", "-c", script}, {beside, counters},
                                     {(dir_ / "a").string(), (dir_ / "b").string()}, 2, {output, ""});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].exit_code, 0);
  EXPECT_EQ(runs[1].exit_code, 0) << "the counters side never saw the gate open";
  EXPECT_TRUE(fs::exists(gate));
  std::ifstream in(output);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "beside-output");
}

// The per-instruction run's filter, its stop and the gate reach the injected library; a symbol
// takes the place of a filter; a run with neither carries no per-instruction variable.
TEST(CollectorOptionsProtocol, PerInstructionFilterStopAndGateTravelThroughTheEnvironment) {
  Environment environment;
  const auto lookup = lookup_in(environment);
  CollectorOptions beside;
  beside.instruction_kernel = "regex:kernelHistogram";
  beside.instruction_launches = 2;
  beside.stop_after_instructions = true;
  beside.gpu_gate = "/tmp/gate";
  write_collector_options(beside, environment);
  CollectorOptions read = read_collector_options(lookup);
  EXPECT_EQ(read.instruction_kernel, "regex:kernelHistogram");
  EXPECT_TRUE(read.instruction_symbol.empty());
  EXPECT_EQ(read.instruction_launches, 2);
  EXPECT_TRUE(read.stop_after_instructions);
  EXPECT_EQ(read.gpu_gate, "/tmp/gate");
  beside.instruction_symbol = "_Z4histPii";
  write_collector_options(beside, environment);
  read = read_collector_options(lookup);
  EXPECT_EQ(read.instruction_symbol, "_Z4histPii");
  EXPECT_TRUE(read.instruction_kernel.empty());
  CollectorOptions counters;
  counters.gpu_gate = "/tmp/gate";
  counters.stop_after_instructions = true;  // means nothing without a per-instruction kernel
  write_collector_options(counters, environment);
  read = read_collector_options(lookup);
  EXPECT_TRUE(read.instruction_symbol.empty() && read.instruction_kernel.empty());
  EXPECT_FALSE(read.stop_after_instructions);
  EXPECT_EQ(read.gpu_gate, "/tmp/gate");
  EXPECT_EQ(environment.count(env::kInstructionLaunches), 0u);
}

// The sector counters' request reaches the injected library, and its absence leaves no variable.
TEST(CollectorOptionsProtocol, SectorCountersTravelThroughTheEnvironment) {
  Environment environment;
  const auto lookup = lookup_in(environment);
  CollectorOptions options;
  options.sector_counters = true;
  write_collector_options(options, environment);
  EXPECT_TRUE(read_collector_options(lookup).sector_counters);
  options.sector_counters = false;
  write_collector_options(options, environment);
  EXPECT_EQ(environment.count(env::kSectorCounters), 0u);
  EXPECT_FALSE(read_collector_options(lookup).sector_counters);
}

// NVTX range patterns travel one per line, names with spaces, commas and slashes intact.
TEST(CollectorOptionsProtocol, NvtxPatternsTravelThroughTheEnvironment) {
  Environment environment;
  const auto lookup = lookup_in(environment);
  CollectorOptions options;
  options.nvtx_include = {"regex:aten::histc, seq/", "step/forward/"};
  options.nvtx_exclude = {"regex:aten::mm/"};
  write_collector_options(options, environment);
  const CollectorOptions read = read_collector_options(lookup);
  EXPECT_EQ(read.nvtx_include, options.nvtx_include);
  EXPECT_EQ(read.nvtx_exclude, options.nvtx_exclude);
  write_collector_options(CollectorOptions{}, environment);
  EXPECT_EQ(environment.count(env::kNvtxInclude), 0u);
  EXPECT_TRUE(read_collector_options(lookup).nvtx_include.empty());
}

// --profile-from-start off travels as "0"; on (the default) leaves no variable, and a value the
// user's shell left over is removed.
TEST(CollectorOptionsProtocol, ProfileFromStartTravelsThroughTheEnvironment) {
  Environment environment{{env::kProfileFromStart, "0"}};
  const auto lookup = lookup_in(environment);
  EXPECT_FALSE(read_collector_options(lookup).profile_from_start);
  write_collector_options(CollectorOptions{}, environment);
  EXPECT_EQ(environment.count(env::kProfileFromStart), 0u);
  EXPECT_TRUE(read_collector_options(lookup).profile_from_start);
  CollectorOptions off;
  off.profile_from_start = false;
  write_collector_options(off, environment);
  EXPECT_FALSE(read_collector_options(lookup).profile_from_start);
}

// The program's NVTX reaches the collector's CUPTI: the injection library is what
// NVTX_INJECTION64_PATH names, and its InitializeInjectionNvtx2 hands NVTX to the libcupti it
// is linked with (no GPU needed: CUPTI's NVTX entry point answers without one).
TEST(NvtxInjection, TheInjectionLibraryHandsNvtxToItsCupti) {
  void* library = dlopen(ATOMQ_INJECT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  using Init = int (*)(const void* (*)(uint32_t));
  const auto init = reinterpret_cast<Init>(dlsym(library, "InitializeInjectionNvtx2"));
  ASSERT_NE(init, nullptr) << "libatomq_inject.so does not export InitializeInjectionNvtx2";
  EXPECT_EQ(init([](uint32_t) -> const void* { return nullptr; }), 1);
  unsetenv("NVTX_INJECTION64_PATH");  // the user's own routing would be kept
  setenv(env::kInjectLib, ATOMQ_INJECT_LIBRARY, 1);
  const auto runs = run_side_by_side({"sh", "-c", std::string("[ \"$NVTX_INJECTION64_PATH\" = \"$") +
                                                    env::kInjectionPath + "\" ]"},
                                     {CollectorOptions{}}, {"/tmp/atomq_nvtx_env_" + std::to_string(getpid())}, 1);
  EXPECT_EQ(runs[0].exit_code, 0) << "NVTX_INJECTION64_PATH is not the injection library";
  unsetenv(env::kInjectLib);
}

// The parent's options reach the injected library unchanged; graph replay and copies of the
// loaded modules are on unless said off.
TEST(CollectorOptionsProtocol, GraphReplayTravelsThroughTheEnvironment) {
  Environment environment;
  CollectorOptions off;
  off.replay_graphs = false;
  off.keep_loaded_code = false;
  off.device = 1;
  write_collector_options(off, environment);
  const auto lookup = lookup_in(environment);
  const CollectorOptions read = read_collector_options(lookup);
  EXPECT_FALSE(read.replay_graphs);
  EXPECT_FALSE(read.keep_loaded_code);
  EXPECT_EQ(read.device, 1);
  environment.erase(env::kGraphReplay);
  environment.erase(env::kKeepLoadedCode);
  EXPECT_TRUE(read_collector_options(lookup).replay_graphs);
  EXPECT_TRUE(read_collector_options(lookup).keep_loaded_code);
  write_collector_options(CollectorOptions{}, environment);
  EXPECT_TRUE(read_collector_options(lookup).replay_graphs);
  EXPECT_TRUE(read_collector_options(lookup).keep_loaded_code);
}

}  // namespace
}  // namespace atomq::analyzer
