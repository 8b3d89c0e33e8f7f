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
#include <string_view>
#include <vector>

namespace atomq::analyzer {

class LoadedCodeStore {
 public:
  // Copies of loaded code objects are kept up to `max_bytes` in all (a program loading more
  // keeps its later modules' SASS unread); saved files are named `<file_prefix>-<load>.cubin`,
  // <load> counting this store's loads (a module id may be reused after an unload).
  static constexpr size_t kDefaultMaxBytes = size_t{512} << 20;
  LoadedCodeStore(std::string directory, std::string file_prefix, size_t max_bytes = kDefaultMaxBytes);

  // A module was loaded: its cubin (valid only during the call) is copied when it defines a
  // function. Of modules defining the same name, the one loaded last is the kernel's.
  void loaded(uint32_t module_id, const char* cubin, size_t size);
  // A module is unloading: its copy is dropped (a file already written stays).
  void unloading(uint32_t module_id);
  // Writes the kept code object that defines `symbol` into the directory, once per object
  // (temporary file + rename). Returns the file's path, "" when no kept object defines it.
  // Throws std::runtime_error when the file cannot be written.
  std::string save_holding(const std::string& symbol);

  size_t bytes_kept() const { return bytes_kept_; }
  size_t modules_refused() const { return modules_refused_; }  // loaded beyond max_bytes

 private:
  struct Module {
    std::string bytes;
    std::set<std::string> functions;
    uint64_t load = 0;
    std::string saved;  // the file written, "" until one is
  };
  std::string directory_, file_prefix_;
  size_t max_bytes_;
  size_t bytes_kept_ = 0;
  size_t modules_refused_ = 0;
  uint64_t loads_ = 0;
  std::map<uint32_t, Module> kept_;             // by module id
  std::map<std::string, uint32_t> definer_;     // function -> the kept module defining it
};

// The functions an ELF code object defines (symbols of type FUNC with a section); none when
// `elf` is not a well-formed 64-bit ELF file. Bounds-checked: the bytes may be anything.
std::set<std::string> defined_functions(std::string_view elf);

// The folder where the code objects of the run whose profile stream is `stream_path` go.
std::string loaded_code_directory(const std::string& stream_path);
// The code objects saved in `directory`, sorted by name (none when it does not exist).
std::vector<std::string> saved_code_objects(const std::string& directory);

}  // namespace atomq::analyzer
