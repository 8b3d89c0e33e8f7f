#include "calibrate_all_devices.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <optional>

#include "atomq/analyzer/cupti_device.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/calibration/table_agreement.hpp"
#include "atomq/cuda/device_query.hpp"
#include "atomq/model/table_selection.hpp"
#include "commands.hpp"

extern char** environ;

namespace atomq::cli {

namespace {

namespace fs = std::filesystem;
namespace cal = atomq::calibration;

struct DeviceRun {
  DeviceInfo device;
  std::string table_path, log_path;
  pid_t pid = -1;
  int status = 0;
  std::optional<cal::ServiceTable> table;
};

// One `atomq calibrate --device I -o TABLE` with its output in TABLE.log.
pid_t start_device_run(const DeviceRun& run, const std::vector<std::string>& options) {
  std::vector<std::string> args{fs::read_symlink("/proc/self/exe").string(), "calibrate", "--device",
                                std::to_string(run.device.ordinal), "-o", run.table_path, "--no-progress"};
  args.insert(args.end(), options.begin(), options.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, run.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start the calibration of GPU " + std::to_string(run.device.ordinal));
  return pid;
}

// DIR/CHIP-UUID.json with -o DIR, else where analyze looks for this GPU's own table.
std::string table_path(const AllDevicesRequest& request, const DeviceInfo& device) {
  const std::string chip = device.chip.empty() ? "unknown" : device.chip;
  if (request.output_dir.empty())
    if (std::string own = model::user_device_table_path(chip, device.uuid); !own.empty()) return own;
  const fs::path dir = request.output_dir.empty() ? fs::path(".") : fs::path(request.output_dir);
  return (dir / (chip + "-" + device.uuid + ".json")).string();
}

void compare_identical(const std::vector<DeviceRun>& runs) {
  for (size_t j = 1; j < runs.size(); ++j) {
    const DeviceRun& a = runs[0];
    const DeviceRun& b = runs[j];
    if (!a.table || !b.table || !cal::same_gpu_model(*a.table, *b.table)) continue;
    const cal::TableAgreement t = cal::compare_tables(*a.table, *b.table);
    fmt::print("GPU {} vs GPU {} ({}): {} saturated cells, |S difference| median {:.2f}%, max {:.2f}% ({}); "
               "{} beyond the two tables' repeat spread\n",
               a.device.ordinal, b.device.ordinal, a.device.name, t.cells, 100 * t.median_difference,
               100 * t.max_difference, t.worst_cell, t.beyond_spread);
    if (t.beyond_spread > 0)
      fmt::print(stderr, "atomq: warning: GPU {} ({}) differs from GPU {} beyond the repeat spread in {} of {} "
                 "saturated cells: check its clocks, temperature and other work on it\n",
                 b.device.ordinal, b.device.uuid, a.device.ordinal, t.beyond_spread, t.cells);
  }
}

}  // namespace

int calibrate_all_devices(const AllDevicesRequest& request) {
  const int count = device_count();
  if (count == 0) {
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: the driver sees no CUDA device\n");
    return kExitNoGpu;
  }
  std::vector<DeviceRun> runs(count);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    DeviceRun& r = runs[i];
    r.device = describe_device(i);
    analyzer::probe_cupti_device(i, r.device);  // the chip name
    r.table_path = table_path(request, r.device);
    if (const auto dir = fs::path(r.table_path).parent_path(); !dir.empty()) fs::create_directories(dir);
    r.log_path = r.table_path + ".log";
  }
  // Every other GPU sweeps L2 first: the CUPTI-profiled L2 sweeps of two processes did not run
  // side by side (measured on two H200s), the shared sweeps do.
  for (int i = 0; i < count; ++i) {
    std::vector<std::string> options = request.per_device_options;
    if (i % 2 == 1) options.push_back("--l2-first");
    runs[i].pid = start_device_run(runs[i], options);
  }
  for (auto& r : runs)
    while (waitpid(r.pid, &r.status, 0) < 0 && errno == EINTR) {
    }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int failed = 0;
  for (auto& r : runs) {
    const bool ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
    if (ok) r.table = cal::load_service_table(r.table_path);
    failed += ok ? 0 : 1;
    fmt::print("GPU {} {} {}: {} ({:.1f} s of its own); log {}\n", r.device.ordinal, r.device.name, r.device.uuid,
               ok ? "wrote " + r.table_path : "FAILED", r.table ? r.table->provenance.wall_seconds : 0.0, r.log_path);
  }
  fmt::print("{} GPU(s) calibrated side by side in {:.1f} s of wall time\n", count - failed, wall);
  if (request.output_dir.empty() && failed < count)
    fmt::print("installed as each GPU's own table: atomq analyze and report evaluate the kernels of each GPU with "
               "its table (unless --table or $ATOMQ_TABLE say otherwise)\n");
  compare_identical(runs);
  return failed ? kExitError : kExitOk;
}

}  // namespace atomq::cli
