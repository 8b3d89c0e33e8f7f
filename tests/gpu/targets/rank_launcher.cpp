// A plain launcher, as torchrun or mpirun start workers: `rank_launcher [--one-at-a-time] N
// PROGRAM ARGS...` forks N processes that exec PROGRAM with RANK, LOCAL_RANK, WORLD_SIZE and
// LOCAL_WORLD_SIZE set, waits for all of them and exits with the first non-zero status (0 when
// all succeed). --one-at-a-time waits for each worker before starting the next (workers that
// share one GPU: its counters serve one profiling process at a time). It never touches the GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int wait_status(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char** argv) {
  const bool one_at_a_time = argc > 1 && std::string(argv[1]) == "--one-at-a-time";
  if (one_at_a_time) {
    --argc;
    ++argv;
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: rank_launcher [--one-at-a-time] N PROGRAM [ARGS...]\n");
    return 2;
  }
  const int workers = std::atoi(argv[1]);
  if (workers < 1) {
    std::fprintf(stderr, "rank_launcher: N must be >= 1\n");
    return 2;
  }
  std::vector<pid_t> pids;
  int result = 0;
  for (int rank = 0; rank < workers; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      return 3;
    }
    if (pid == 0) {
      const std::string r = std::to_string(rank), n = std::to_string(workers);
      setenv("RANK", r.c_str(), 1);
      setenv("LOCAL_RANK", r.c_str(), 1);
      setenv("WORLD_SIZE", n.c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", n.c_str(), 1);
      execvp(argv[2], argv + 2);
      std::perror(argv[2]);
      _exit(127);
    }
    if (one_at_a_time) {
      const int code = wait_status(pid);
      if (result == 0) result = code;
    } else {
      pids.push_back(pid);
    }
  }
  for (pid_t pid : pids) {
    const int code = wait_status(pid);
    if (result == 0) result = code;
  }
  return result;
}
