// The code objects (cubins) the driver loads into a profiled program, kept so that the SASS of
// a kernel the program's executable does not hold (one in a shared library such as PyTorch's,
// a module loaded at run time, a JIT-compiled PTX) can be read after the run
// (sass_hints.hpp, fill_hints_from_loaded_code). Host code only: the collector hands it the
// bytes CUPTI's module callbacks give (kernel_profiler.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace atomq::analyzer {

class LoadedCodeStore {
 public:
  // Copies of loaded code objects are kept up to `max_bytes` in all (a program loading more
  // keeps its later modules' SASS unread); saved files are named `<file_prefix>-<module id>.cubin`.
  static constexpr size_t kDefaultMaxBytes = size_t{512} << 20;
  LoadedCodeStore(std::string directory, std::string file_prefix, size_t max_bytes = kDefaultMaxBytes);

  // A module was loaded: its cubin (valid only during the call) is copied.
  void loaded(uint32_t module_id, const char* cubin, size_t size);
  // A module is unloading: its copy is dropped (a file already written stays).
  void unloading(uint32_t module_id);
  // Writes the kept code object whose symbol table names `symbol` into the directory, once per
  // object (temporary file + rename). Returns the file's path, "" when no kept object names
  // it. Throws std::runtime_error when the file cannot be written.
  std::string save_holding(const std::string& symbol);

  size_t bytes_kept() const { return bytes_kept_; }
  size_t modules_refused() const { return modules_refused_; }  // loaded beyond max_bytes

 private:
  std::string directory_, file_prefix_;
  size_t max_bytes_;
  size_t bytes_kept_ = 0;
  size_t modules_refused_ = 0;
  std::map<uint32_t, std::string> kept_;      // module id -> cubin bytes
  std::map<uint32_t, std::string> saved_;     // module id -> file written
  std::map<std::string, uint32_t> module_of_;   // symbol -> the kept module found to name it
  std::set<std::string> symbols_without_code_;  // looked for and not found (asked again only after a load)
};

// Of `symbols`, those the code object `bytes` names (as save_holding finds them).
std::vector<std::string> symbols_named_in(const std::string& bytes, const std::vector<std::string>& symbols);

// The folder where the code objects of the run whose profile stream is `stream_path` go.
std::string loaded_code_directory(const std::string& stream_path);
// The code objects saved in `directory`, sorted by name (none when it does not exist).
std::vector<std::string> saved_code_objects(const std::string& directory);

}  // namespace atomq::analyzer
