// Source lines of a kernel's instructions: the call site of each SASS offset, from the line
// table of its cubin (the program built with -lineinfo or -G), read with the toolkit's
// `nvdisasm -gi`. An atomicAdd is inlined from the toolkit's headers, so the call site is the
// outermost frame of the inlining chain, not the header line the innermost one names.
// Logs through spdlog; prints nothing; never throws.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace atomq::analyzer {

struct SourceLines {
  std::map<long long, std::string> by_offset;  // "file:line" (file as the line table names it)
  std::string reason;                          // why there are none ("" when there are)
};

// Parses `nvdisasm -gi` output for the functions `symbols` (mangled).
class NvdisasmLineParser {
 public:
  explicit NvdisasmLineParser(std::set<std::string> symbols) : symbols_(std::move(symbols)) {}
  void add_line(std::string_view line);
  // Per function seen: offset -> "file:line" (empty for a function without a line table).
  const std::map<std::string, std::map<long long, std::string>>& functions() const { return functions_; }

 private:
  std::set<std::string> symbols_;
  std::map<long long, std::string>* current_function_ = nullptr;
  std::string current_;  // the call site of the instructions that follow
  std::map<std::string, std::map<long long, std::string>> functions_;
};

// The call sites of each of `symbols`' instructions in `binary_path`, for SASS of `arch`
// ("sm_90"): the binary's cubins extracted once (`cuobjdump -xelf`), then `nvdisasm -gi` once
// per cubin that holds any of them. Every symbol gets an entry (with its reason when empty).
std::map<std::string, SourceLines> source_lines(const std::string& binary_path, const std::set<std::string>& symbols,
                                                const std::string& arch);

}  // namespace atomq::analyzer
