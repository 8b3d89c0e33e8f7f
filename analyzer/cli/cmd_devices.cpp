// atomq devices: every visible GPU, its chip and whether its counters can be read.
#include <fmt/format.h>

#include "atomq/analyzer/cupti_device.hpp"
#include "atomq/cuda_check.hpp"
#include "atomq/microbench/atomic_stream.hpp"
#include "commands.hpp"

namespace atomq::cli {

namespace {

int run_devices() {
  const int count = microbench::device_count();
  if (count == 0) {
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: the driver sees no CUDA device\n");
    return kExitNoGpu;
  }
  for (int i = 0; i < count; ++i) {
    const microbench::DeviceSummary d = microbench::describe_device(i);
    const analyzer::CuptiDeviceInfo cupti = analyzer::probe_cupti_device(i);
    fmt::print("device {}: {}\n", i, d.name);
    fmt::print("  chip                 {}\n", cupti.chip.empty() ? "unknown" : cupti.chip);
    fmt::print("  compute capability   {}.{}\n", d.cc_major, d.cc_minor);
    fmt::print("  SMs                  {}\n", d.sm_count);
    fmt::print("  max warps per SM     {}\n", d.max_warps_per_sm);
    fmt::print("  shared memory per SM {} KiB ({} KiB per block opt-in)\n",
               d.shared_mem_per_sm / 1024, d.shared_mem_per_block_optin / 1024);
    fmt::print("  SM clock (max)       {} MHz\n", d.clock_khz / 1000);
    fmt::print("  memory clock         {} MHz\n", d.memory_clock_khz / 1000);
    fmt::print("  driver / runtime     {} (CUDA {}) / CUDA {}\n", microbench::nvidia_driver_release(),
               microbench::cuda_version_string(d.driver_version),
               microbench::cuda_version_string(d.runtime_version));
    fmt::print("  hardware counters    {}{}\n", analyzer::to_string(cupti.counters),
               cupti.detail.empty() ? "" : " - " + cupti.detail);
  }
  return kExitOk;
}

}  // namespace

void add_devices_command(CLI::App& app, CommandRunner& selected) {
  auto* sub = app.add_subcommand("devices", "list visible GPUs and whether counters can be read");
  sub->callback([&selected] { selected = run_devices; });
}

}  // namespace atomq::cli
