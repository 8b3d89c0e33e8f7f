#include "atomq/common/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace atomq {

namespace {

namespace fs = std::filesystem;

// ---- Temporaries a terminating signal must remove ----------------------------------------
// Fixed slots of plain chars: the handler may only read them (async-signal-safe).
constexpr int kSlots = 32;
constexpr size_t kPathMax = PATH_MAX;
char g_pending[kSlots][kPathMax];
std::atomic<bool> g_used[kSlots];
std::mutex g_slots_mutex;

// Every signal whose default action ends the process (signal(7): Term and Core), the real-time
// ones included. SIGKILL and SIGSTOP cannot be caught.
sigset_t terminating_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1, SIGSEGV, SIGUSR2,
                  SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS})
    sigaddset(&set, sig);
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) sigaddset(&set, sig);
  return set;
}

// Only unlink, sigaction and raise: all async-signal-safe. The signal is blocked while the
// handler runs, so the raise takes effect, with the default action, when it returns.
void remove_pending_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load()) ::unlink(g_pending[i]);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

// Installed once, and only where the signal still has its default action (a program that set
// its own handler, or ignores the signal, keeps that).
void install_cleanup_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = terminating_signals();
    for (int sig = 1; sig < NSIG; ++sig) {
      if (sigismember(&set, sig) != 1) continue;
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
        continue;
      struct sigaction cleanup {};
      cleanup.sa_handler = remove_pending_and_reraise;
      sigfillset(&cleanup.sa_mask);  // one handler at a time
      ::sigaction(sig, &cleanup, nullptr);
    }
  });
}

// Holds back the terminating signals for its lifetime: a temporary is created and registered,
// or several renamed into place, without a signal in between.
class SignalsHeld {
 public:
  SignalsHeld() {
    const sigset_t set = terminating_signals();
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalsHeld() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t old_;
};

// One temporary this process created: registered for the signal handler, removed unless
// committed. Construct with the signals held.
class OwnTemporary {
 public:
  OwnTemporary(const std::string& path, const std::string& destination) : path_(path) {
    std::lock_guard<std::mutex> lock(g_slots_mutex);
    for (int i = 0; i < kSlots && path.size() < kPathMax; ++i)
      if (!g_used[i].load()) {
        std::memcpy(g_pending[i], path.c_str(), path.size() + 1);
        g_used[i].store(true);
        slot_ = i;
        return;
      }
    ::unlink(path.c_str());
    throw std::runtime_error(destination + ": more than " + std::to_string(kSlots) + " files written at once");
  }
  ~OwnTemporary() {
    if (!committed_) ::unlink(path_.c_str());
    g_used[slot_].store(false);
  }
  OwnTemporary(const OwnTemporary&) = delete;
  OwnTemporary& operator=(const OwnTemporary&) = delete;
  const std::string& path() const { return path_; }
  void committed() { committed_ = true; }

 private:
  std::string path_;
  int slot_ = -1;
  bool committed_ = false;
};

// ---- Where an output goes ----------------------------------------------------------------
enum class Kind {
  kReplace,  // a regular file (or none yet): temporary + rename
  kDirect,   // standard output, a device, a FIFO: written in place, nothing renamed
};

struct Destination {
  std::string name;     // as the user gave it, for messages
  Kind kind = Kind::kReplace;
  std::string path;     // what is written: the file, a symbolic link's target, or the device
  int fd = -1;          // standard output / error: written to this descriptor
  mode_t mode = 0;      // a replaced file's mode
  bool existed = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

mode_t new_file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(022);  // read the umask: set it and put it back at once
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

std::string error_text(int err) { return std::strerror(err); }

// "-", /dev/stdout and /dev/stderr are the process's own descriptors: written there, so that a
// shell's `>>` or a pipe gets the content where it expects it.
int standard_descriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1") return 1;
  if (path == "/dev/stderr" || path == "/dev/fd/2" || path == "/proc/self/fd/2") return 2;
  return -1;
}

Destination regular_destination(Destination d, const struct stat& st, bool is_link) {
  d.existed = true;
  d.mode = st.st_mode & 0777;  // not setuid/setgid/sticky
  d.uid = st.st_uid;
  d.gid = st.st_gid;
  if (is_link) {  // keep the link: replace the file it names
    std::error_code ec;
    d.path = fs::canonical(d.name, ec).string();
    if (ec) throw std::runtime_error(d.name + ": cannot resolve the symbolic link: " + ec.message());
  }
  return d;
}

Destination classify(const std::string& name) {
  Destination d;
  d.name = name;
  d.path = name;
  if ((d.fd = standard_descriptor(name)) >= 0) {
    d.kind = Kind::kDirect;
    return d;
  }
  struct stat link {};
  if (::lstat(name.c_str(), &link) != 0) {
    if (errno != ENOENT) throw std::runtime_error(name + ": cannot write: " + error_text(errno));
    d.mode = new_file_mode();
    return d;
  }
  // Another user's link could send root's output anywhere: only ours (or root's) is followed.
  if (S_ISLNK(link.st_mode) && link.st_uid != ::geteuid() && link.st_uid != 0)
    throw std::runtime_error(name + ": a symbolic link owned by another user (uid " + std::to_string(link.st_uid) +
                             "); not followed");
  struct stat st {};
  if (::stat(name.c_str(), &st) != 0)
    throw std::runtime_error(name + ": a symbolic link to a missing file (" + error_text(errno) + "); not followed");
  if (S_ISDIR(st.st_mode)) throw std::runtime_error(name + ": is a folder");
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {  // never replaced by a regular file
    d.kind = Kind::kDirect;
    return d;
  }
  if (!S_ISREG(st.st_mode)) throw std::runtime_error(name + ": neither a file, a character device nor a FIFO");
  return regular_destination(d, st, S_ISLNK(link.st_mode));
}

// ---- Writing -----------------------------------------------------------------------------
void write_all(int fd, const std::string& content, const std::string& name) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(name + ": write failed: " + error_text(n < 0 ? errno : EIO));
    done += static_cast<size_t>(n);
  }
}

// A device, a FIFO or standard output: written in place (no fsync: not a file on a disk).
void write_direct(const Destination& d, const std::string& content) {
  if (d.fd >= 0) {
    std::fflush(d.fd == 1 ? stdout : stderr);  // what the program printed before comes first
    write_all(d.fd, content, d.name);
    return;
  }
  const int fd = ::open(d.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(d.name + ": cannot open: " + error_text(errno));
  try {
    write_all(fd, content, d.name);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

// A new file ".NAME.XXXXXX" beside the destination: a random name, O_CREAT|O_EXCL|O_NOFOLLOW.
// Created and registered with the signals held, so no signal leaves it unregistered.
std::unique_ptr<OwnTemporary> create_temporary(const Destination& d, int& fd) {
  const fs::path target(d.path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string name = (folder / ("." + target.filename().string() + ".XXXXXX")).string();
  install_cleanup_handlers();
  SignalsHeld held;
  fd = ::mkostemp(name.data(), O_CLOEXEC | O_NOFOLLOW);  // glibc: O_RDWR|O_CREAT|O_EXCL, mode 0600
  if (fd < 0)
    throw std::runtime_error(d.name + ": cannot create a temporary file in " + folder.string() + ": " +
                             error_text(errno));
  try {
    return std::make_unique<OwnTemporary>(name, d.name);
  } catch (...) {
    ::close(fd);
    throw;
  }
}

// The content in a temporary with the destination's mode (and owner, where allowed), on disk
// (fsync) so a crash after the rename never leaves an empty or partial file.
std::unique_ptr<OwnTemporary> write_temporary(const Destination& d, const std::string& content) {
  int fd = -1;
  auto tmp = create_temporary(d, fd);
  try {
    if (::fchmod(fd, d.mode) != 0) throw std::runtime_error(d.name + ": cannot set the mode: " + error_text(errno));
    if (d.existed && (d.uid != ::geteuid() || d.gid != ::getegid()))
      (void)::fchown(fd, d.uid, d.gid);  // root replacing another user's file: it stays theirs
    write_all(fd, content, d.name);
    if (::fsync(fd) != 0) throw std::runtime_error(d.name + ": write failed (disk full?): " + error_text(errno));
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw std::runtime_error(d.name + ": write failed (disk full?): " + error_text(errno));
  return tmp;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text.empty() ? "none" : text;
}

// Renames every temporary into place with the terminating signals held: a SIGINT between two
// renames takes effect after the last. A failed rename names what is in place and what is not.
void commit(const std::vector<Destination>& outputs, std::vector<std::unique_ptr<OwnTemporary>>& temps,
            std::vector<std::string> written) {
  SignalsHeld held;
  for (size_t i = 0, t = 0; i < outputs.size(); ++i) {
    if (outputs[i].kind != Kind::kReplace) continue;
    OwnTemporary& tmp = *temps[t++];
    if (std::rename(tmp.path().c_str(), outputs[i].path.c_str()) != 0) {
      const int err = errno;
      std::vector<std::string> not_written;
      for (size_t j = i; j < outputs.size(); ++j)
        if (outputs[j].kind == Kind::kReplace) not_written.push_back(outputs[j].name);
      throw std::runtime_error(outputs[i].name + ": cannot rename the temporary file into place: " + error_text(err) +
                               " (written: " + joined(written) + "; not written: " + joined(not_written) + ")");
    }
    tmp.committed();
    written.push_back(outputs[i].name);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  write_files_atomically({{path, content}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<Destination> outputs;
  for (const auto& file : files) outputs.push_back(classify(file.first));
  std::vector<std::unique_ptr<OwnTemporary>> temps;  // removed on any failure: none is put in place
  for (size_t i = 0; i < files.size(); ++i)
    if (outputs[i].kind == Kind::kReplace) temps.push_back(write_temporary(outputs[i], files[i].second));
  std::vector<std::string> written;  // devices and standard output cannot wait for the renames
  for (size_t i = 0; i < files.size(); ++i) {
    if (outputs[i].kind != Kind::kDirect) continue;
    try {
      write_direct(outputs[i], files[i].second);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(std::string(e.what()) + " (written: " + joined(written) + "; no file replaced)");
    }
    written.push_back(outputs[i].name);
  }
  commit(outputs, temps, written);
}

void refuse_output_among_inputs(const std::string& output, const std::vector<std::string>& inputs) {
  if (standard_descriptor(output) >= 0) return;
  struct stat out {};
  const bool out_exists = ::stat(output.c_str(), &out) == 0;
  if (out_exists && !S_ISREG(out.st_mode)) return;  // /dev/null may be both
  std::error_code ec;
  const fs::path out_path = fs::absolute(output, ec).lexically_normal();
  for (const auto& input : inputs) {
    struct stat in {};
    const bool same_inode = out_exists && ::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev &&
                            in.st_ino == out.st_ino;
    const bool same_path = !ec && fs::absolute(input, ec).lexically_normal() == out_path;
    if (same_inode || same_path)
      throw std::runtime_error(output + ": is also an input (" + input + "); writing it would replace that input");
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
