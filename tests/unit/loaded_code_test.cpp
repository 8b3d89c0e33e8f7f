// The store of loaded code objects (atomq/analyzer/loaded_code.hpp): which object a profiled
// kernel's SASS is read from, written once, within its memory bound. No GPU: the bytes stand
// for cubins (an ELF string table entry is "\0name\0").
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "atomq/analyzer/loaded_code.hpp"

namespace atomq::analyzer {
namespace {

namespace fs = std::filesystem;

std::string object_naming(const std::string& symbol) { return std::string("\x7f" "ELF", 4) + '\0' + symbol + '\0' + "tail"; }

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class LoadedCode : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fs::temp_directory_path() / ("atomq_loaded_code_" + std::to_string(getpid())); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(LoadedCode, SavesTheObjectNamingTheKernelOnce) {
  LoadedCodeStore store((dir_ / "code").string(), "42");
  const std::string a = object_naming("_Z4histPKiPfi"), b = object_naming("_Z5otherv");
  store.loaded(3, a.data(), a.size());
  store.loaded(7, b.data(), b.size());
  const std::string path = store.save_holding("_Z4histPKiPfi");
  EXPECT_EQ(fs::path(path).filename(), "42-3.cubin");
  EXPECT_EQ(read_all(path), a);
  EXPECT_EQ(store.save_holding("_Z4histPKiPfi"), path);
  EXPECT_EQ(saved_code_objects((dir_ / "code").string()), std::vector<std::string>{path});
  EXPECT_EQ(fs::path(store.save_holding("_Z5otherv")).filename(), "42-7.cubin");
  EXPECT_EQ(saved_code_objects((dir_ / "code").string()).size(), 2u);
}

TEST_F(LoadedCode, MatchesWholeNamesOnly) {
  LoadedCodeStore store(dir_.string(), "1");
  const std::string a = object_naming("_Z1fv_suffix");
  store.loaded(1, a.data(), a.size());
  EXPECT_EQ(store.save_holding("_Z1fv"), "");
  EXPECT_EQ(store.save_holding("suffix"), "");
  EXPECT_TRUE(saved_code_objects(dir_.string()).empty());
}

TEST_F(LoadedCode, AKernelLoadedLaterIsFoundAfterAMiss) {
  LoadedCodeStore store(dir_.string(), "1");
  EXPECT_EQ(store.save_holding("_Z1gv"), "");
  const std::string a = object_naming("_Z1gv");
  store.loaded(2, a.data(), a.size());
  EXPECT_NE(store.save_holding("_Z1gv"), "");
}

TEST_F(LoadedCode, AnUnloadedModuleIsDroppedAndItsIdMayComeBack) {
  LoadedCodeStore store(dir_.string(), "1");
  const std::string a = object_naming("_Z1hv"), b = object_naming("_Z1kv");
  store.loaded(5, a.data(), a.size());
  EXPECT_NE(store.save_holding("_Z1hv"), "");
  EXPECT_NE(store.save_holding("_Z1hv"), "");  // found again without a search
  store.unloading(5);
  EXPECT_EQ(store.bytes_kept(), 0u);
  EXPECT_EQ(store.save_holding("_Z1hv"), "");
  store.loaded(5, b.data(), b.size());  // the id reused by another module
  EXPECT_EQ(read_all(store.save_holding("_Z1kv")), b);
}

TEST_F(LoadedCode, KeepsNoMoreThanItsBound) {
  const std::string a = object_naming("_Z1av"), b = object_naming("_Z1bv");
  LoadedCodeStore store(dir_.string(), "1", a.size() + 1);
  store.loaded(1, a.data(), a.size());
  store.loaded(2, b.data(), b.size());
  EXPECT_EQ(store.bytes_kept(), a.size());
  EXPECT_EQ(store.modules_refused(), 1u);
  EXPECT_NE(store.save_holding("_Z1av"), "");
  EXPECT_EQ(store.save_holding("_Z1bv"), "");
}

TEST_F(LoadedCode, AnUnwritableFolderIsAnErrorNamingTheFile) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "not a folder";
  LoadedCodeStore store((dir_ / "file").string(), "1");
  const std::string a = object_naming("_Z1av");
  store.loaded(1, a.data(), a.size());
  try {
    store.save_holding("_Z1av");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("1-1.cubin"), std::string::npos) << e.what();
  }
}

TEST_F(LoadedCode, NamesTheSymbolsAnObjectHolds) {
  const std::string a = object_naming("_Z1av") + '\0' + "_Z1bv" + '\0';
  EXPECT_EQ(symbols_named_in(a, {"_Z1av", "_Z1bv", "_Z1cv", "", "_Z1a"}), (std::vector<std::string>{"_Z1av", "_Z1bv"}));
}

TEST_F(LoadedCode, TheFolderFollowsTheStreamAndListsCubinsOnly) {
  EXPECT_EQ(loaded_code_directory("/x/run.json.profiles.jsonl"), "/x/run.json.profiles.jsonl.code");
  EXPECT_TRUE(saved_code_objects((dir_ / "absent").string()).empty());
  fs::create_directories(dir_);
  std::ofstream(dir_ / "b.cubin") << "x";
  std::ofstream(dir_ / "a.cubin") << "x";
  std::ofstream(dir_ / "a.cubin.tmp") << "x";
  const auto files = saved_code_objects(dir_.string());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(fs::path(files[0]).filename(), "a.cubin");
}

}  // namespace
}  // namespace atomq::analyzer
