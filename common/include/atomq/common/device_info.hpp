// The one description of a GPU, shared by calibration provenance, kernel profiles, the
// benchmarks and `atomq devices`. Plain C++: the host-only layers carry it without CUDA.
// Fields a source cannot know stay 0 or empty ("unknown").
#pragma once

#include <string>

namespace atomq {

struct DeviceInfo {
  std::string name;               // "NVIDIA H200"
  std::string chip;               // CUPTI chip name, "GH100"; empty when not asked
  int ordinal = 0;
  std::string uuid;               // "GPU-8c5e...", as nvidia-smi prints it; empty when unknown
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  int max_warps_per_sm = 0;
  int max_threads_per_block = 0;
  long long shared_mem_per_sm = 0;
  long long shared_mem_per_block_optin = 0;
  int clock_khz = 0;              // nominal SM clock (device attribute)
  int memory_clock_khz = 0;
  int driver_version = 0;         // CUDA driver API version, 13000 = 13.0
  int runtime_version = 0;        // CUDA runtime version
  double sm_clock_mhz = 0;        // measured under load or locked during a run; 0 = unknown
  double dram_peak_bytes_per_s = 0;  // DRAM peak bandwidth (attributes); 0 = unknown

  std::string compute_capability() const;  // "9.0"
};

// The DRAM's peak bandwidth from the device attributes: two transfers per memory clock (DDR)
// over the bus width; 0 when either is unknown. A ceiling: reachable is lower (about 0.8x).
double dram_peak_bytes_per_s(int memory_clock_khz, int bus_width_bits);

// "9.0" -> major and minor; false when the text is not "<major>.<minor>".
bool parse_compute_capability(const std::string& text, int& major, int& minor);
// The 16 bytes of a device UUID as nvidia-smi prints them: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string device_uuid_text(const unsigned char (&bytes)[16]);
// Whether `text` has that form (a profile or table from elsewhere is checked before use).
bool is_device_uuid_text(const std::string& text);
// 13000 -> "13.0" (CUDA driver/runtime API version numbers).
std::string cuda_version_string(int version);
// The NVIDIA kernel module's release ("580.159.04") from /proc; "unknown" when unreadable.
std::string nvidia_driver_release();

}  // namespace atomq
