#include "atomq/analyzer/ncu_report.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "atomq/analyzer/ncu_csv.hpp"

extern char** environ;

namespace atomq::analyzer {

namespace {

bool is_executable(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

// The last non-empty line of a small file (ncu's error), "" when none.
std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

}  // namespace

std::optional<std::string> find_ncu() {
  if (const char* given = std::getenv("ATOMQ_NCU"); given && *given) {
    if (is_executable(given)) return std::string(given);
    return std::nullopt;
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty() && is_executable(dir + "/ncu")) return dir + "/ncu";
  }
  if (is_executable("/usr/local/cuda/bin/ncu")) return std::string("/usr/local/cuda/bin/ncu");
  return std::nullopt;
}

void export_ncu_report(const std::string& report, const std::string& csv_path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(report, ec)) throw NcuCsvError(report + ": no such report file");
  const std::optional<std::string> ncu = find_ncu();
  if (!ncu)
    throw NcuCsvError(report + ": reading an Nsight Compute report needs ncu (not found on PATH, in "
                      "/usr/local/cuda/bin or at $ATOMQ_NCU); or export it where ncu is: ncu --import " + report +
                      " --csv --page raw --print-units base > R.csv, then atomq analyze --ncu-csv R.csv");
  const std::string errors = csv_path + ".ncu-errors";
  std::vector<std::string> args = {*ncu, "--import", report, "--csv", "--page", "raw", "--print-units", "base"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, csv_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw NcuCsvError(report + ": cannot run " + *ncu + ": " + std::strerror(spawned));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string why = last_line_of(errors);
  std::filesystem::remove(errors, ec);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw NcuCsvError(report + ": " + *ncu + " --import failed (exit status " +
                      std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) + ")" +
                      (why.empty() ? "" : ": " + why));
}

}  // namespace atomq::analyzer
