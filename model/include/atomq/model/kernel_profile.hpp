// KernelProfile: what the analyzer measured for one kernel launch, as the model consumes it.
// Versioned JSON: {"format": "atomq.kernel_profile", "version": 1, ...} (docs/model.md).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace atomq::model {

inline constexpr const char* kKernelProfileFormat = "atomq.kernel_profile";
inline constexpr int kKernelProfileVersion = 1;

// Where the numbers came from.
enum class CounterSource { kInProcess, kInjected, kNcuCsv, kSynthetic };
std::string to_string(CounterSource s);  // "in_process", "injected", "ncu_csv", "synthetic"
std::optional<CounterSource> counter_source_from_string(const std::string& s);

struct LaunchConfig {
  std::array<long long, 3> grid{1, 1, 1};
  std::array<int, 3> block{1, 1, 1};
  int registers_per_thread = 0;             // 0 = unknown
  long long shared_mem_bytes_per_block = 0;  // static + dynamic
  int max_active_blocks_per_sm = 0;          // occupancy calculator; 0 = unknown

  long long threads_per_block() const {
    return static_cast<long long>(block[0]) * block[1] * block[2];
  }
  long long blocks() const { return grid[0] * grid[1] * grid[2]; }
};

struct DeviceInfo {
  std::string name;            // "NVIDIA H200"
  std::string chip;            // CUPTI chip name, "GH100"
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;            // 0 = unknown
  int max_warps_per_sm = 0;    // 0 = unknown
  double sm_clock_mhz = 0;     // measured or locked clock during the run; 0 = unknown
  double dram_peak_bytes_per_s = 0;  // reachable DRAM bandwidth; 0 = unknown
};

struct KernelProfile {
  std::string kernel_name;
  LaunchConfig launch;
  DeviceInfo device;
  CounterSource source = CounterSource::kInProcess;
  std::string source_detail;   // e.g. the program and launch index, or the CSV file

  // Raw counters keyed by full metric name with rollup, e.g. "sm__cycles_active.max".
  std::map<std::string, double> counters;

  // From the SASS of the kernel: "popc_inc" when the non-CAS shared atomics are
  // ATOMS.POPC.INC (result unused: same-address lanes merge), "add" otherwise.
  std::optional<std::string> shared_atomic_variant;
  // Useful updates the kernel performs (known for built-in targets or given by the user):
  // gives CAS retry amplification.
  std::optional<double> useful_updates;

  std::optional<double> counter(const std::string& name) const {
    auto it = counters.find(name);
    if (it == counters.end()) return std::nullopt;
    return it->second;
  }
};

// A malformed profile document. what() names the source and the field.
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string serialize_kernel_profile(const KernelProfile& profile);  // pretty JSON
// Strict: format, version, types and required fields are checked; throws ProfileError.
KernelProfile parse_kernel_profile(const std::string& json_text, const std::string& source_name);
KernelProfile load_kernel_profile(const std::string& path);

}  // namespace atomq::model
