// Source lines of a kernel's instructions: the call site of each SASS offset, from the line
// table of its cubin (the program built with -lineinfo or -G), read with the toolkit's
// `nvdisasm -gi`. An atomicAdd is inlined from the toolkit's headers, so the call site is the
// outermost frame of the inlining chain, not the header line the innermost one names.
// Logs through spdlog; prints nothing; never throws.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace atomq::analyzer {

struct SourceLines {
  std::map<long long, std::string> by_offset;  // "file:line" (file as the line table names it)
  std::string reason;                          // why there are none ("" when there are)
};

// Parses `nvdisasm -gi` output for the function `symbol` (mangled).
class NvdisasmLineParser {
 public:
  explicit NvdisasmLineParser(std::string symbol) : label_(".text." + std::move(symbol) + ":") {}
  void add_line(std::string_view line);
  const std::map<long long, std::string>& lines() const { return lines_; }
  bool saw_function() const { return saw_function_; }

 private:
  std::string label_;
  bool in_function_ = false, saw_function_ = false;
  std::string current_;  // the call site of the instructions that follow
  std::map<long long, std::string> lines_;
};

// The call site of `symbol`'s instructions in `binary_path`, for SASS of `arch` ("sm_90"):
// the cubin holding the function extracted with `cuobjdump -xelf`, then `nvdisasm -gi`.
SourceLines source_lines(const std::string& binary_path, const std::string& symbol, const std::string& arch);

}  // namespace atomq::analyzer
