// atomq devices: every visible GPU, its chip and whether its counters can be read.
#include <fmt/format.h>

#include "atomq/analyzer/cupti_device.hpp"
#include "atomq/cuda/check.hpp"
#include "atomq/cuda/device_query.hpp"
#include "commands.hpp"

namespace atomq::cli {

namespace {

int run_devices() {
  const int count = device_count();
  if (count == 0) {
    fmt::print(stderr, "atomq: no usable NVIDIA GPU: the driver sees no CUDA device\n");
    return kExitNoGpu;
  }
  for (int i = 0; i < count; ++i) {
    DeviceInfo d = describe_device(i);
    const analyzer::CounterAvailability cupti = analyzer::probe_cupti_device(i, d);
    fmt::print("device {}: {}\n", i, d.name);
    fmt::print("  chip                 {}\n", d.chip.empty() ? "unknown" : d.chip);
    fmt::print("  compute capability   {}\n", d.compute_capability());
    fmt::print("  SMs                  {}\n", d.sm_count);
    fmt::print("  max warps per SM     {}\n", d.max_warps_per_sm);
    fmt::print("  shared memory per SM {} KiB ({} KiB per block opt-in)\n",
               d.shared_mem_per_sm / 1024, d.shared_mem_per_block_optin / 1024);
    fmt::print("  SM clock (max)       {} MHz\n", d.clock_khz / 1000);
    fmt::print("  memory clock         {} MHz\n", d.memory_clock_khz / 1000);
    fmt::print("  DRAM peak            {:.0f} GB/s (memory clock x bus width x 2)\n", d.dram_peak_bytes_per_s / 1e9);
    fmt::print("  driver / runtime     {} (CUDA {}) / CUDA {}\n", nvidia_driver_release(),
               cuda_version_string(d.driver_version),
               cuda_version_string(d.runtime_version));
    fmt::print("  hardware counters    {}{}\n", enum_name(cupti.access),
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
