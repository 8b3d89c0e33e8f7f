#include "atomq/common/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace atomq {

namespace {

// Temporary files being written, so a terminating signal can remove them. Fixed slots of
// plain chars: the handler may only read them (async-signal-safe).
constexpr int kSlots = 8;
constexpr size_t kPathMax = 4096;
char g_pending[kSlots][kPathMax];
std::atomic<bool> g_used[kSlots];
std::mutex g_slots_mutex;

void remove_pending_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load()) ::unlink(g_pending[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Installed once, and only where the signal still has its default action (a program that
// set its own handler keeps it).
void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
        struct sigaction cleanup {};
        cleanup.sa_handler = remove_pending_and_reraise;
        sigaction(sig, &cleanup, nullptr);
      }
    }
  });
}

class PendingTemp {
 public:
  explicit PendingTemp(const std::string& path) {
    install_cleanup_handlers();
    std::lock_guard<std::mutex> lock(g_slots_mutex);
    for (int i = 0; i < kSlots && path.size() < kPathMax; ++i)
      if (!g_used[i].load()) {
        std::memcpy(g_pending[i], path.c_str(), path.size() + 1);
        g_used[i].store(true);
        slot_ = i;
        break;
      }
  }
  ~PendingTemp() {
    if (slot_ >= 0) g_used[slot_].store(false);
  }
  PendingTemp(const PendingTemp&) = delete;
  PendingTemp& operator=(const PendingTemp&) = delete;

 private:
  int slot_ = -1;
};

// "OUT.tmp.<pid>" left by a process that no longer runs (killed by SIGKILL mid-write).
void remove_stale_temps(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + (slash == 0));
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid > 0 && *end == '\0' && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
}

void write_all(int fd, const std::string& content, const std::string& path) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}


// The content in PATH.tmp.PID, on disk (fsync) so a crash after the rename never leaves an
// empty or partial file. Returns the temporary's name; removes it and throws on failure.
std::string write_temporary(const std::string& path, const std::string& content) {
  remove_stale_temps(path);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot create temporary file " + tmp + ": " + std::strerror(errno));
  try {
    write_all(fd, content, path);
    if (::fsync(fd) != 0) throw std::runtime_error(path + ": write failed (disk full?): " + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": write failed (disk full?): " + std::strerror(errno));
  }
  return tmp;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  write_files_atomically({{path, content}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::unique_ptr<PendingTemp>> pending;
  std::vector<std::string> temps;
  try {
    for (const auto& [path, content] : files) {
      pending.push_back(std::make_unique<PendingTemp>(path + ".tmp." + std::to_string(::getpid())));
      temps.push_back(write_temporary(path, content));
    }
  } catch (...) {  // one failed: none is put in place
    for (const auto& tmp : temps) ::unlink(tmp.c_str());
    throw;
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (std::rename(temps[i].c_str(), files[i].first.c_str()) != 0) {
      const int err = errno;
      for (size_t j = i; j < temps.size(); ++j) ::unlink(temps[j].c_str());
      throw std::runtime_error(files[i].first + ": cannot rename temporary file into place: " + std::strerror(err));
    }
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  // A document is at most this big: /dev/zero or a runaway pipe is refused, not read forever.
  constexpr size_t kMaxBytes = size_t{256} << 20;
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxBytes) throw std::runtime_error(path + ": larger than 256 MiB: not an atomq document");
  }
  if (in.bad()) throw std::runtime_error(path + ": read failed");
  return text;
}

}  // namespace atomq
