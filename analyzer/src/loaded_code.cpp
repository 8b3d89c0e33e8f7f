#include "atomq/analyzer/loaded_code.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>

namespace atomq::analyzer {

namespace fs = std::filesystem;

namespace {

// Whether the cubin's string tables hold `symbol` as one whole entry ("\0symbol\0"): an ELF
// symbol's name is such an entry. A name found only this way and not defined in the object
// costs a cuobjdump run that finds no function, never a wrong hint (hints match by name).
bool names_symbol(const std::string& cubin, const std::string& symbol) {
  std::string needle;
  needle.reserve(symbol.size() + 2);
  needle.push_back('\0');
  needle += symbol;
  needle.push_back('\0');
  return std::string_view(cubin).find(needle) != std::string_view::npos;
}

}  // namespace

LoadedCodeStore::LoadedCodeStore(std::string directory, std::string file_prefix, size_t max_bytes)
    : directory_(std::move(directory)), file_prefix_(std::move(file_prefix)), max_bytes_(max_bytes) {}

void LoadedCodeStore::loaded(uint32_t module_id, const char* cubin, size_t size) {
  if (cubin == nullptr || size == 0) return;
  if (bytes_kept_ + size > max_bytes_) {
    ++modules_refused_;
    return;
  }
  unloading(module_id);  // a reused id is a new module
  kept_[module_id].assign(cubin, size);
  bytes_kept_ += size;
  symbols_without_code_.clear();
}

void LoadedCodeStore::unloading(uint32_t module_id) {
  const auto it = kept_.find(module_id);
  if (it == kept_.end()) return;
  bytes_kept_ -= it->second.size();
  kept_.erase(it);
  saved_.erase(module_id);
  for (auto found = module_of_.begin(); found != module_of_.end();)
    found = found->second == module_id ? module_of_.erase(found) : std::next(found);
}

std::string LoadedCodeStore::save_holding(const std::string& symbol) {
  if (symbol.empty() || symbols_without_code_.count(symbol)) return "";
  // A kernel launched again is found without searching every kept module (up to 512 MiB).
  if (const auto known = module_of_.find(symbol); known != module_of_.end())
    if (const auto saved = saved_.find(known->second); saved != saved_.end()) return saved->second;
  for (const auto& [id, cubin] : kept_) {
    if (!names_symbol(cubin, symbol)) continue;
    module_of_[symbol] = id;
    if (const auto saved = saved_.find(id); saved != saved_.end()) return saved->second;
    std::error_code ec;
    fs::create_directories(directory_, ec);
    const std::string path = (fs::path(directory_) / (file_prefix_ + "-" + std::to_string(id) + ".cubin")).string();
    const std::string temporary = path + ".tmp";
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
      if (!out.flush()) throw std::runtime_error("cannot write " + temporary);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
      const int err = errno;
      std::remove(temporary.c_str());
      throw std::runtime_error("cannot rename " + temporary + ": " + std::strerror(err));
    }
    saved_[id] = path;
    return path;
  }
  symbols_without_code_.insert(symbol);
  return "";
}

std::vector<std::string> symbols_named_in(const std::string& bytes, const std::vector<std::string>& symbols) {
  std::vector<std::string> named;
  for (const std::string& symbol : symbols)
    if (!symbol.empty() && names_symbol(bytes, symbol)) named.push_back(symbol);
  return named;
}

std::string loaded_code_directory(const std::string& stream_path) { return stream_path + ".code"; }

std::vector<std::string> saved_code_objects(const std::string& directory) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".cubin" && it->is_regular_file(ec)) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace atomq::analyzer
