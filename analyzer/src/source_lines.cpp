#include "atomq/analyzer/source_lines.hpp"

#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "atomq/analyzer/sass_listing.hpp"
#include "tool_run.hpp"

namespace atomq::analyzer {

namespace fs = std::filesystem;

namespace {

using detail::trimmed;

// `//## File "A", line 112 inlined at "B", line 40`: the last "file", line pair (B:40).
std::optional<std::string> call_site(std::string_view s) {
  std::optional<std::string> site;
  for (size_t at = s.find('"'); at != std::string_view::npos; at = s.find('"', at)) {
    const size_t close = s.find('"', at + 1);
    if (close == std::string_view::npos) break;
    const std::string_view file = s.substr(at + 1, close - at - 1);
    const size_t line_at = s.find("line ", close);
    if (line_at == std::string_view::npos) break;
    size_t end = line_at + 5;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
    if (end > line_at + 5) site = std::string(file) + ":" + std::string(s.substr(line_at + 5, end - line_at - 5));
    at = end;
  }
  return site;
}

// Which of `symbols` the extracted cubin holds (its string table names their sections).
std::set<std::string> symbols_in(const fs::path& cubin, const std::set<std::string>& symbols) {
  std::ifstream in(cubin, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::set<std::string> held;
  for (const std::string& symbol : symbols)
    if (bytes.find(".text." + symbol + std::string(1, '\0')) != std::string::npos) held.insert(symbol);
  return held;
}

}  // namespace

void NvdisasmLineParser::add_line(std::string_view line) {
  const std::string_view s = trimmed(line);
  if (s.rfind(".text.", 0) == 0 && s.size() > 7 && s.back() == ':') {
    const std::string symbol(s.substr(6, s.size() - 7));
    current_function_ = symbols_.count(symbol) ? &functions_[symbol] : nullptr;
    current_.clear();
    return;
  }
  if (current_function_ == nullptr) return;
  if (s.rfind("//-----", 0) == 0 || s.rfind(".section", 0) == 0) {
    current_function_ = nullptr;
    return;
  }
  if (s.rfind("//## File", 0) == 0) {
    if (const std::optional<std::string> site = call_site(s)) current_ = *site;
    return;
  }
  if (current_.empty()) return;
  if (const std::optional<SassInstruction> instruction = parse_sass_instruction(s))
    (*current_function_)[instruction->offset] = current_;
}

namespace {

// The cubins of `arch` extracted into `dir`, each with the wanted symbols it holds.
std::map<fs::path, std::set<std::string>> wanted_cubins(const fs::path& dir, const std::set<std::string>& symbols,
                                                        const std::string& arch) {
  std::map<fs::path, std::set<std::string>> out;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".cubin" || name.find("." + arch + ".") == std::string::npos) continue;
    if (std::set<std::string> held = symbols_in(entry.path(), symbols); !held.empty()) out[entry.path()] = held;
  }
  return out;
}

}  // namespace

std::map<std::string, SourceLines> source_lines(const std::string& binary_path, const std::set<std::string>& symbols,
                                                const std::string& arch) {
  std::map<std::string, SourceLines> out;
  for (const std::string& symbol : symbols)
    out[symbol].reason = "no " + arch + " cubin of the binary holds the kernel (loaded at run time or JIT-compiled)";
  const std::optional<std::string> cuobjdump = find_cuobjdump(), nvdisasm = find_cuda_tool("nvdisasm");
  if (!cuobjdump || !nvdisasm) {
    for (auto& [symbol, lines] : out) lines.reason = "cuobjdump or nvdisasm not found (they ship with the CUDA toolkit)";
    return out;
  }
  std::string dir_template = (fs::temp_directory_path() / "atomq-cubins-XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr) {
    for (auto& [symbol, lines] : out) lines.reason = "cannot create a temporary folder for the cubins";
    return out;
  }
  const fs::path dir(dir_template);
  using detail::shell_quoted;
  std::error_code ec;
  detail::run_tool("cd " + shell_quoted(dir.string()) + " && " + shell_quoted(*cuobjdump) + " -xelf all " +
                       shell_quoted(fs::absolute(binary_path, ec).string()) + " 2>&1",
                   [](std::string_view) {});
  for (const auto& [cubin, held] : wanted_cubins(dir, symbols, arch)) {
    NvdisasmLineParser parser(held);
    detail::run_tool(shell_quoted(*nvdisasm) + " -gi " + shell_quoted(cubin.string()) + " 2>&1",
                     [&parser](std::string_view line) { parser.add_line(line); });
    for (const std::string& symbol : held) {
      const auto it = parser.functions().find(symbol);
      SourceLines& lines = out[symbol];
      lines.reason = it == parser.functions().end() ? "nvdisasm did not list the kernel"
                     : it->second.empty()           ? "no line table in the kernel's cubin (build with -lineinfo)"
                                                    : "";
      if (it != parser.functions().end()) lines.by_offset = it->second;
    }
  }
  fs::remove_all(dir, ec);
  for (const auto& [symbol, lines] : out)
    spdlog::debug("source lines of {}: {} instruction(s){}", symbol, lines.by_offset.size(),
                  lines.reason.empty() ? "" : ": " + lines.reason);
  return out;
}

}  // namespace atomq::analyzer
