#include "atomq/common/device_info.hpp"

#include <fstream>
#include <regex>
#include <sstream>

namespace atomq {

std::string DeviceInfo::compute_capability() const {
  return std::to_string(compute_capability_major) + "." + std::to_string(compute_capability_minor);
}

bool parse_compute_capability(const std::string& text, int& major, int& minor) {
  std::istringstream in(text);
  int ma = 0, mi = 0;
  char dot = 0;
  if (!(in >> ma >> dot >> mi) || dot != '.' || ma < 0 || mi < 0) return false;
  in >> std::ws;
  if (!in.eof()) return false;
  major = ma;
  minor = mi;
  return true;
}

std::string device_uuid_text(const unsigned char (&bytes)[16]) {
  static const char* digits = "0123456789abcdef";
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += digits[bytes[i] >> 4];
    text += digits[bytes[i] & 0xf];
  }
  return text;
}

bool is_device_uuid_text(const std::string& text) {
  static const std::regex form("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  return std::regex_match(text, form);
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string nvidia_driver_release() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (!in || !std::getline(in, line)) return "unknown";
  static const std::regex release(R"((\d+\.\d+(\.\d+)?))");
  const auto module = line.find("Kernel Module");
  std::smatch m;
  const std::string tail = module == std::string::npos ? line : line.substr(module);
  return std::regex_search(tail, m, release) ? m[1].str() : "unknown";
}

double dram_peak_bytes_per_s(int memory_clock_khz, int bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return 0.0;
  return 2.0 * memory_clock_khz * 1e3 * bus_width_bits / 8.0;
}

}  // namespace atomq
