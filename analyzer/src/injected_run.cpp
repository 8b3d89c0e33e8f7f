#include "atomq/analyzer/injected_run.hpp"

#include <cupti_result.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "atomq/run_document/process_streams.hpp"
#include "atomq/run_document/profile_stream.hpp"

extern char** environ;

namespace atomq::analyzer {

namespace {

namespace fs = std::filesystem;

std::string injection_library() {
  if (const char* lib = std::getenv(env::kInjectLib); lib && *lib) return lib;
  const fs::path self_dir = fs::read_symlink("/proc/self/exe").parent_path();
  for (const fs::path& candidate : {self_dir / ".." / "lib" / "libatomq_inject.so", self_dir / "libatomq_inject.so"})
    if (fs::exists(candidate)) return fs::canonical(candidate).string();
  throw std::runtime_error(std::string("libatomq_inject.so not found next to atomq (set ") + env::kInjectLib + ")");
}

// The folder libcupti was loaded from: libcupti loads libnvperf_host.so by bare name, so the
// profiled program needs that folder on its loader path.
std::string cupti_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetResultString), &info) && info.dli_fname)
    return fs::path(info.dli_fname).parent_path().string();
  return "";
}

// This process's environment plus the collector's variables.
Environment child_environment(const CollectorOptions& options, const std::string& stream_path) {
  Environment environment;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) environment[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  environment[env::kInjectionPath] = injection_library();
  // Absolute: the program may change its working folder before it starts CUDA.
  std::error_code ec;
  const fs::path absolute_stream = fs::absolute(stream_path, ec);
  environment[env::kProfileOutput] = ec ? stream_path : absolute_stream.string();
  environment[env::kParentPid] = std::to_string(getpid());
  std::string ld_path = cupti_dir();
  if (const auto old = environment.find("LD_LIBRARY_PATH"); old != environment.end() && !old->second.empty())
    ld_path += (ld_path.empty() ? "" : ":") + old->second;
  if (!ld_path.empty()) environment["LD_LIBRARY_PATH"] = ld_path;
  // The program's NVTX calls reach the collector's CUPTI through the injection library
  // (InitializeInjectionNvtx2 in injection.cpp), unless the user routes them elsewhere.
  if (!environment.count("NVTX_INJECTION64_PATH"))
    environment["NVTX_INJECTION64_PATH"] = environment[env::kInjectionPath];
  write_collector_options(options, environment);
  return environment;
}

std::vector<char*> c_pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// While the program runs it owns the terminal: Ctrl-C and Ctrl-\ go to it, atomq reports after.
class TerminalSignalsIgnored {
 public:
  TerminalSignalsIgnored() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int_);
    sigaction(SIGQUIT, &ignore, &old_quit_);
  }
  ~TerminalSignalsIgnored() { restore(); }
  TerminalSignalsIgnored(const TerminalSignalsIgnored&) = delete;
  TerminalSignalsIgnored& operator=(const TerminalSignalsIgnored&) = delete;
  // Also called in the child before exec, so the program gets atomq's own dispositions.
  void restore() const {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGQUIT, &old_quit_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_quit_ {};
};

struct Started {
  pid_t pid = -1;
  int exec_errno = 0;  // why exec failed (0: the program runs)
};

// fork + execvpe; exec's errno comes back through a close-on-exec pipe (nothing to read: the
// exec succeeded).
Started start(const std::vector<std::string>& program, const Environment& environment,
              const TerminalSignalsIgnored& signals, const std::string& output_path) {
  std::vector<std::string> args = program, entries;
  for (const auto& [name, value] : environment) entries.push_back(name + "=" + value);
  std::vector<char*> argv = c_pointers(args), envp = c_pointers(entries);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  Started started;
  started.pid = fork();
  if (started.pid == 0) {
    close(pipe_fds[0]);
    signals.restore();
    if (!output_path.empty()) {  // the program's output to a file instead of the terminal
      const int fd = open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
      }
    }
    execvpe(argv[0], argv.data(), envp.data());
    const int err = errno;
    (void)!write(pipe_fds[1], &err, sizeof err);
    _exit(127);
  }
  const int fork_errno = errno;
  close(pipe_fds[1]);
  if (started.pid < 0) {
    close(pipe_fds[0]);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(fork_errno));
  }
  int err = 0;
  ssize_t n = 0;
  while ((n = read(pipe_fds[0], &err, sizeof err)) < 0 && errno == EINTR) {
  }
  close(pipe_fds[0]);
  if (n == static_cast<ssize_t>(sizeof err)) started.exec_errno = err;
  return started;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
  return status;
}

// The counts of every process of the program, added up.
void add_stats(run::SessionStats& total, const run::SessionStats& s) {
  total.launches_seen += s.launches_seen;
  total.launches_profiled += s.launches_profiled;
  total.launches_filtered += s.launches_filtered;
  total.graph_launches += s.graph_launches;
  total.graph_launches_profiled += s.graph_launches_profiled;
  total.graph_nodes_not_profiled += s.graph_nodes_not_profiled;
  total.captured_launches += s.captured_launches;
  total.failed += s.failed;
  total.passes = std::max(total.passes, s.passes);
  total.seconds_in_launches += s.seconds_in_launches;
  total.seconds_configuring += s.seconds_configuring;
  total.seconds_keeping_code += s.seconds_keeping_code;
  if (!s.last_error.empty()) total.last_error = s.last_error;
  if (total.graph_note.empty()) total.graph_note = s.graph_note;
}

void apply_collector_message(const nlohmann::json& message, InjectedRun& r) {
  const std::string kind = message.value("kind", "");
  if (kind == message_kind::kStats) {
    const run::SessionStats stats = run::stats_from_message(message);
    add_stats(r.info.launches, stats);
    if (stats.failed > 0) r.collector_error = stats.last_error;
  } else if (kind == message_kind::kError) {
    r.collector_error = message.value("message", std::string());
  } else if (kind == message_kind::kInstructions) {
    r.instructions.push_back(run::instructions_from_message(message, "the per-instruction collector"));
  }
}

// The profiles and the collector's messages the program left in the stream.
void read_stream(const std::string& stream_path, InjectedRun& r) {
  if (!fs::exists(stream_path)) return;
  run::ProfileStream stream = run::read_profile_stream(stream_path);
  spdlog::debug("{}: {} profile(s), {} collector message(s)", stream_path, stream.profiles.size(),
                stream.messages.size());
  for (auto& p : stream.profiles) r.profiles.push_back(std::move(p));
  for (auto& note : stream.notes) r.info.warnings.push_back(std::move(note));
  for (const auto& message : stream.messages) {
    try {
      apply_collector_message(message, r);
    } catch (const std::exception&) {  // not an object, or a field of the wrong type
      r.info.warnings.push_back("unreadable collector message skipped: " + message.dump());
    }
  }
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

// What the program left: its exit status, the profiles and the collector's messages.
InjectedRun finished_run(const std::vector<std::string>& program, const Started& started, int status,
                         const std::string& stream_path) {
  InjectedRun r;
  if (started.exec_errno != 0) {
    r.exec_error = std::strerror(started.exec_errno);
    r.exit_code = 127;
    return r;
  }
  r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + r.signal;
  r.info.command = joined(program);
  r.info.source = "injected";
  r.info.program_exit_code = r.exit_code;
  if (r.signal != 0)
    r.info.warnings.push_back("the program was killed by signal " + std::to_string(r.signal) +
                              ": profiles written before that are kept");
  read_stream(stream_path, r);  // the program atomq started, then the processes it started
  for (const std::string& sibling : run::sibling_streams(stream_path)) read_stream(sibling, r);
  if (!r.info.launches.graph_note.empty()) r.info.warnings.push_back("CUDA graphs: " + r.info.launches.graph_note);
  if (r.info.launches.launches_profiled == 0)
    r.info.launches.launches_profiled = static_cast<long long>(r.profiles.size());
  if (!r.collector_error.empty())
    r.info.warnings.push_back("profiling error: " + r.collector_error + collector_error_fix(r.collector_error));
  return r;
}

}  // namespace

InjectedRun run_under_injection(const std::vector<std::string>& program, const CollectorOptions& options,
                                const std::string& stream_path) {
  return std::move(run_side_by_side(program, {options}, {stream_path}, 1).front());
}

std::vector<InjectedRun> run_side_by_side(const std::vector<std::string>& program,
                                          const std::vector<CollectorOptions>& options,
                                          const std::vector<std::string>& stream_paths, int jobs,
                                          const std::vector<std::string>& output_paths) {
  if (program.empty()) throw std::invalid_argument("no program to run");
  if (options.size() != stream_paths.size()) throw std::invalid_argument("one stream path per run expected");
  jobs = std::max(jobs, 1);
  std::vector<Environment> environments;
  for (size_t i = 0; i < options.size(); ++i) {
    fs::remove(stream_paths[i]);  // the collector appends
    run::remove_sibling_streams(stream_paths[i]);
    environments.push_back(child_environment(options[i], stream_paths[i]));
    spdlog::debug("running {} with {}={} -> {}", joined(program), env::kInjectionPath,
                  environments.back().at(env::kInjectionPath), stream_paths[i]);
  }
  std::vector<Started> started(options.size());
  std::vector<int> status(options.size(), 0);
  {
    // One guard for the batch: each child restores atomq's own dispositions before exec.
    const TerminalSignalsIgnored signals;
    size_t waited = 0;  // runs 0..waited-1 have ended
    auto wait_oldest = [&] {
      status[waited] = wait_for(started[waited].pid);
      const CollectorOptions& o = options[waited];
      if (o.collects_instructions()) open_gpu_gate(o.gpu_gate);
      ++waited;
    };
    try {
      for (size_t i = 0; i < options.size(); ++i) {
        // Our own children only, oldest first: another thread may be running tools meanwhile.
        while (i - waited >= static_cast<size_t>(jobs)) wait_oldest();
        started[i] = start(program, environments[i], signals, i < output_paths.size() ? output_paths[i] : "");
      }
    } catch (...) {  // fork failed: leave no child unreaped
      while (waited < options.size() && started[waited].pid > 0) wait_oldest();
      throw;
    }
    while (waited < options.size()) wait_oldest();
  }
  std::vector<InjectedRun> runs;
  for (size_t i = 0; i < options.size(); ++i) runs.push_back(finished_run(program, started[i], status[i], stream_paths[i]));
  return runs;
}

std::string collector_error_fix(const std::string& error) {
  auto has = [&error](const char* text) { return error.find(text) != std::string::npos; };
  if (has("INSUFFICIENT_PRIVILEGES") || has("privilege"))
    return " Fix: run as root or with CAP_SYS_ADMIN, or load the driver with "
           "NVreg_RestrictProfilingToAdminUsers=0 (ERR_NVGPUCTRPERM).";
  if (has("another profiler"))
    return " Fix: run atomq outside ncu/nsys/compute-sanitizer and disable framework profilers.";
  if (has("HARDWARE_BUSY"))
    return " Fix: another process was profiling this GPU at the same time (a child the program started, or "
           "another profiler): only one is profiled at a time; profile the child on its own.";
  if (has("nvperf") || has("LIBRARY"))
    return " Fix: put the CUDA toolkit's lib folder (libnvperf_host.so) on LD_LIBRARY_PATH.";
  return "";
}

}  // namespace atomq::analyzer
