#include "atomq/common/data_dir.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace atomq {

namespace fs = std::filesystem;

namespace {

constexpr int kLevelsUp = 5;  // bin/atomq, lib/python3/dist-packages/atomq.so, ...

std::vector<fs::path> start_points() {
  std::vector<fs::path> starts;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) starts.push_back(exe.parent_path());
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&data_dir), &info) != 0 && info.dli_fname != nullptr) {
    const fs::path object = fs::weakly_canonical(fs::path(info.dli_fname), ec);
    if (!ec) starts.push_back(object.parent_path());
  }
  return starts;
}

}  // namespace

std::optional<std::string> data_dir() {
  if (const char* env = std::getenv("ATOMQ_DATA_DIR"); env != nullptr && *env != '\0') return std::string(env);
  for (fs::path dir : start_points()) {
    for (int level = 0; level <= kLevelsUp && !dir.empty(); ++level) {
      std::error_code ec;
      const fs::path candidate = dir / "share" / "atomq";
      if (fs::is_directory(candidate / "tables", ec)) return candidate.string();
      if (dir == dir.parent_path()) break;
      dir = dir.parent_path();
    }
  }
  return std::nullopt;
}

std::string data_path(const std::string& sub) {
  const auto dir = data_dir();
  if (!dir)
    throw std::runtime_error("atomq's data folder (share/atomq with tables/) was not found beside the program; "
                             "set ATOMQ_DATA_DIR to it");
  return (fs::path(*dir) / sub).string();
}

}  // namespace atomq
