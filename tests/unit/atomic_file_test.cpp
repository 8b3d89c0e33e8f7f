// Interrupted writes: a terminating signal removes the temporary file, one left by a killed
// writer is removed on the next write, and a device that never ends is not read forever.
#include "atomq/common/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

namespace atomq {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("atomq_atomic_file_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicFile, WritesAndReplaces) {
  const std::string out = (dir_ / "out.json").string();
  write_file_atomically(out, "first");
  write_file_atomically(out, "second");
  EXPECT_EQ(read_text_file(out), "second");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1);
}

TEST_F(AtomicFile, TemporaryOfAKilledWriterIsRemovedNextTime) {
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);  // this pid now names no process
  const fs::path stale = dir_ / ("out.json.tmp." + std::to_string(gone));
  const fs::path other = dir_ / "other.json.tmp.12";
  write_file_atomically(stale.string(), "");  // just a file with that name
  write_file_atomically(other.string(), "");
  write_file_atomically((dir_ / "out.json").string(), "data");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(other)) << "another file's temporaries are not touched";
}

TEST_F(AtomicFile, SigtermDuringTheWriteRemovesTheTemporary) {
  const std::string out = (dir_ / "out.json").string();
  const pid_t child = fork();
  if (child == 0) {
    // The temporary is a FIFO nobody reads: opening it blocks inside the write.
    ::mkfifo((out + ".tmp." + std::to_string(::getpid())).c_str(), 0600);
    write_file_atomically(out, "never finished");
    _exit(0);
  }
  const fs::path tmp = out + ".tmp." + std::to_string(child);
  for (int i = 0; i < 200 && !fs::exists(tmp); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the blocking open
  ::kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_FALSE(fs::exists(out));
}

TEST(ReadTextFile, ADeviceThatNeverEndsIsRefused) {
  try {
    read_text_file("/dev/zero");
    ADD_FAILURE() << "read /dev/zero";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero: larger than 256 MiB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace atomq
