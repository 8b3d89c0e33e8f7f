// Output files: a terminating signal removes this process's temporary and no other file, planted
// links are not followed, modes are kept, devices and FIFOs are written in place, an output
// that is an input is refused, and a device that never ends is not read forever.
#include "atomq/common/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
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

// No sweeping: a file that looks like a temporary (another writer's, or planted) is left alone.
TEST_F(AtomicFile, OnlyItsOwnTemporariesAreRemoved) {
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);  // this pid now names no process
  const fs::path stale = dir_ / ("out.json.tmp." + std::to_string(gone));
  const fs::path lookalike = dir_ / ".out.json.AbC123";
  write_file_atomically(stale.string(), "someone's");
  write_file_atomically(lookalike.string(), "someone else's");
  write_file_atomically((dir_ / "out.json").string(), "data");
  EXPECT_EQ(read_text_file(stale.string()), "someone's");
  EXPECT_EQ(read_text_file(lookalike.string()), "someone else's");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 3);
}

// Symbolic links planted under the names a writer used to take (OUT.tmp.PID for the next pids,
// OUT.tmp, .OUT.tmp) are never followed: the file they point to is untouched.
TEST_F(AtomicFile, PlantedSymbolicLinksAreNotFollowed) {
  const fs::path victim = dir_ / "victim";
  write_file_atomically(victim.string(), "precious");
  const std::string out = (dir_ / "out.json").string();
  for (int pid = ::getpid(); pid < ::getpid() + 64; ++pid)
    fs::create_symlink(victim, out + ".tmp." + std::to_string(pid));
  for (const char* suffix : {".tmp", ".new", "~"}) fs::create_symlink(victim, out + suffix);
  fs::create_symlink(dir_ / "created", dir_ / ".out.json.tmp");  // dangling: O_CREAT would create it
  write_file_atomically(out, "data");
  EXPECT_EQ(read_text_file(out), "data");
  EXPECT_EQ(read_text_file(victim.string()), "precious");
  EXPECT_FALSE(fs::exists(dir_ / "created"));
  EXPECT_FALSE(fs::is_symlink(out));
}

TEST_F(AtomicFile, TheDestinationKeepsItsModeAndANewFileGetsTheUmasksMode) {
  const std::string secret = (dir_ / "secret.json").string();
  write_file_atomically(secret, "first");
  fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomically(secret, "second");
  EXPECT_EQ(fs::status(secret).permissions() & fs::perms::mask, fs::perms::owner_read | fs::perms::owner_write);

  const mode_t mask = ::umask(022);
  ::umask(mask);
  const std::string fresh = (dir_ / "new.json").string();
  write_file_atomically(fresh, "x");
  struct stat st {};
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
}

// A device, a FIFO, a link to a file: written through, never replaced by a regular file.
TEST_F(AtomicFile, DevicesFifosAndLinksAreWrittenNotReplaced) {
  write_file_atomically("/dev/null", "gone");
  EXPECT_TRUE(fs::is_character_file("/dev/null"));

  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read_text_file(fifo); });
  write_file_atomically(fifo, "through the pipe");
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));

  const fs::path target = dir_ / "target.json";
  const fs::path link = dir_ / "link.json";
  write_file_atomically(target.string(), "old");
  fs::create_symlink(target, link);
  write_file_atomically(link.string(), "new");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_text_file(target.string()), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 3);

  fs::create_symlink(dir_ / "missing", dir_ / "dangling.json");
  EXPECT_THROW(write_file_atomically((dir_ / "dangling.json").string(), "x"), std::runtime_error);
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

TEST_F(AtomicFile, AnOutputThatIsAnInputIsRefused) {
  const std::string in = (dir_ / "table.json").string();
  write_file_atomically(in, "{}");
  fs::create_hard_link(in, dir_ / "hard.json");
  fs::create_symlink(in, dir_ / "soft.json");
  const std::string relative = (dir_ / "." / "table.json").string();
  for (const std::string& out : {in, (dir_ / "hard.json").string(), (dir_ / "soft.json").string(), relative}) {
    try {
      refuse_output_among_inputs(out, {"/nonexistent/other.json", in});
      ADD_FAILURE() << out << " accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), out + ": is also an input (" + in + "); writing it would replace that input");
    }
  }
  EXPECT_NO_THROW(refuse_output_among_inputs((dir_ / "other.csv").string(), {in}));
  EXPECT_NO_THROW(refuse_output_among_inputs("/dev/null", {"/dev/null"}));
  EXPECT_NO_THROW(refuse_output_among_inputs("-", {"-"}));
}

// Every signal that ends the process by default removes the temporary, and only then ends it.
// The second output is a FIFO nobody reads: its open blocks after the first's temporary is
// written, before any rename.
TEST_F(AtomicFile, EveryTerminatingSignalRemovesTheTemporary) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGXCPU, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM,
                  SIGPROF, SIGRTMIN + 1}) {
    const std::string out = (dir_ / "out.json").string();
    const std::string fifo = (dir_ / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const pid_t child = fork();
    if (child == 0) {
      const rlimit no_core{0, 0};  // SIGQUIT and SIGXCPU would dump one
      ::setrlimit(RLIMIT_CORE, &no_core);
      write_files_atomically({{out, "never finished"}, {fifo, "blocks"}});
      _exit(0);
    }
    auto temporaries = [&] {
      int n = 0;
      for (const auto& e : fs::directory_iterator(dir_)) n += e.path().filename().string().rfind(".out.json.", 0) == 0;
      return n;
    };
    for (int i = 0; i < 500 && temporaries() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(temporaries(), 1) << strsignal(sig);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // into the blocking open
    ::kill(child, sig);
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << strsignal(sig) << ": " << status;
    EXPECT_EQ(temporaries(), 0) << strsignal(sig);
    EXPECT_FALSE(fs::exists(out)) << strsignal(sig);
    fs::remove(fifo);
  }
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
