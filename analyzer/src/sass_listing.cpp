// Parsing `cuobjdump -sass` text and running cuobjdump. The layout it reads, per cubin:
//   arch = sm_90 / code for sm_90          the arch of the functions that follow
//   Function : _Z12kernelPj                one function
//   /*0120*/  @P0 OPCODE operands ;  /* 0x... */   one instruction (an encoding line follows)
//   ..........                             the function's end
// Everything else (headers, encoding lines, PTX, tool messages) is skipped.
#include "atomq/analyzer/sass_listing.hpp"

#include "tool_run.hpp"

#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <system_error>
#include <thread>
#include <string>
#include <tuple>

namespace atomq::analyzer {

namespace {

using detail::trimmed;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// "0x1a0" or "1a0" -> 416; nullopt for anything else (at most 15 digits: no overflow).
std::optional<long long> parse_hex(std::string_view s) {
  if (starts_with(s, "0x") || starts_with(s, "0X")) s.remove_prefix(2);
  if (s.empty() || s.size() > 15) return std::nullopt;
  long long value = 0;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10;
    value = value * 16 + digit;
  }
  return value;
}

bool valid_opcode(std::string_view op) {
  if (op.empty() || !std::isupper(static_cast<unsigned char>(op.front()))) return false;
  for (char c : op)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_') return false;
  return true;
}

// Splits on commas outside brackets ("desc[UR4][R2.64], R5" -> two operands).
std::vector<std::string> split_operands(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t begin = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    const char c = i < s.size() ? s[i] : ',';
    if (c == '[' || c == '(') ++depth;
    if ((c == ']' || c == ')') && depth > 0) --depth;
    if (c != ',' || (depth > 0 && i < s.size())) continue;
    const std::string_view operand = trimmed(s.substr(begin, i - begin));
    if (!operand.empty()) out.emplace_back(operand);
    begin = i + 1;
  }
  return out;
}

// The first word of `s` and what follows it.
std::pair<std::string_view, std::string_view> first_word(std::string_view s) {
  s = trimmed(s);
  size_t end = 0;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
  return {s.substr(0, end), trimmed(s.substr(end))};
}

bool is_branch(std::string_view opcode) { return opcode == "BRA" || starts_with(opcode, "BRA."); }

}  // namespace

std::optional<SassInstruction> parse_sass_instruction(std::string_view line) {
  std::string_view s = trimmed(line);
  if (!starts_with(s, "/*")) return std::nullopt;
  const size_t close = s.find("*/", 2);
  if (close == std::string_view::npos) return std::nullopt;
  const std::optional<long long> offset = parse_hex(s.substr(2, close - 2));
  if (!offset) return std::nullopt;  // "/* 0x000fe4... */" is an encoding line
  std::string_view statement = s.substr(close + 2);
  statement = statement.substr(0, std::min(statement.find(';'), statement.find("/*")));
  statement = trimmed(statement);
  if (starts_with(statement, "{")) statement = trimmed(statement.substr(1));  // dual issue (older archs)
  if (!statement.empty() && statement.back() == '}') statement = trimmed(statement.substr(0, statement.size() - 1));

  SassInstruction instruction;
  instruction.offset = *offset;
  auto [word, rest] = first_word(statement);
  if (starts_with(word, "@")) {
    instruction.predicate = std::string(word);
    std::tie(word, rest) = first_word(rest);
  }
  if (!valid_opcode(word)) return std::nullopt;
  instruction.opcode = std::string(word);
  instruction.operands = split_operands(rest);
  if (is_branch(instruction.opcode) && !instruction.operands.empty())
    instruction.branch_target = parse_hex(instruction.operands.back());
  return instruction;
}

void SassListingParser::add_line(std::string_view line) {
  const std::string_view s = trimmed(line);
  if (starts_with(s, "code for ") || starts_with(s, "arch = ")) {
    const std::string_view value = starts_with(s, "arch") ? s.substr(s.find('=') + 1) : s.substr(9);
    arch_ = std::string(first_word(value).first);
    keeping_ = false;
    return;
  }
  if (starts_with(s, "Function")) {
    const size_t colon = s.find(':');
    const std::string name = colon == std::string_view::npos ? "" : std::string(first_word(s.substr(colon + 1)).first);
    if (!name.empty()) ++functions_seen_;
    keeping_ = !name.empty() && (!keep_ || keep_(name, arch_));
    if (keeping_) functions_.push_back(SassFunction{name, arch_, {}});
    return;
  }
  if (starts_with(s, "....") || starts_with(s, "Fatbin")) {
    keeping_ = false;
    return;
  }
  if (!keeping_) return;
  if (std::optional<SassInstruction> instruction = parse_sass_instruction(s))
    functions_.back().instructions.push_back(std::move(*instruction));
}

std::vector<SassFunction> SassListingParser::finish() {
  keeping_ = false;
  return std::move(functions_);
}

std::vector<SassFunction> parse_sass_listing(std::string_view text, const SassFunctionFilter& keep) {
  SassListingParser parser(keep);
  while (!text.empty()) {
    const size_t end = text.find('\n');
    parser.add_line(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return parser.finish();
}

std::vector<SassLoop> backward_branch_loops(const SassFunction& function) {
  std::vector<SassLoop> loops;
  for (const SassInstruction& instruction : function.instructions)
    if (instruction.branch_target && *instruction.branch_target < instruction.offset)
      loops.push_back({*instruction.branch_target, instruction.offset});
  return loops;
}

std::optional<int> sass_arch_number(const std::string& arch) {
  if (!starts_with(arch, "sm_")) return std::nullopt;
  std::string_view digits = std::string_view(arch).substr(3);
  if (!digits.empty() && std::isalpha(static_cast<unsigned char>(digits.back()))) digits.remove_suffix(1);
  if (digits.empty() || digits.size() > 4) return std::nullopt;
  int number = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    number = number * 10 + (c - '0');
  }
  return number;
}

const SassFunction* find_sass_function(const std::vector<SassFunction>& functions, const std::string& mangled_name,
                                       int major, int minor) {
  const int device_arch = major * 10 + minor;
  const SassFunction* best = nullptr;
  int best_arch = -1;
  for (const SassFunction& f : functions) {
    if (f.mangled_name != mangled_name) continue;
    const std::optional<int> arch = sass_arch_number(f.arch);
    if (!arch) continue;
    const bool suits = major <= 0 || (*arch / 10 == major && *arch <= device_arch);  // 0: device unknown
    if (!suits || *arch <= best_arch) continue;
    best = &f;
    best_arch = *arch;
  }
  return best;
}

namespace {

bool executable(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> find_cuda_tool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty() && executable(std::filesystem::path(dir) / name))
      return (std::filesystem::path(dir) / name).string();
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  const std::filesystem::path in_toolkit = std::filesystem::path("/usr/local/cuda/bin") / name;
  if (executable(in_toolkit)) return in_toolkit.string();
  return std::nullopt;
}

std::optional<std::string> find_cuobjdump() { return find_cuda_tool("cuobjdump"); }

namespace {

// One cuobjdump run: the whole binary, or only `symbol` (`-fun`).
struct DumpPart {
  std::vector<SassFunction> functions;
  long long functions_seen = 0;
  detail::ToolRun run;
};

DumpPart dump_part(const std::string& tool, const std::string& binary_path, const SassFunctionFilter& keep,
                   const std::string& symbol) {
  using detail::shell_quoted;
  const std::string command = shell_quoted(tool) + " -sass " +
                              (symbol.empty() ? "" : "-fun " + shell_quoted(symbol) + " ") +
                              shell_quoted(binary_path) + " 2>&1";
  spdlog::debug("running {}", command);
  SassListingParser parser(keep);
  DumpPart part;
  part.run = detail::run_tool(command, [&parser](std::string_view line) { parser.add_line(line); });
  part.functions = parser.finish();
  part.functions_seen = parser.functions_seen();
  return part;
}

}  // namespace

SassDump dump_sass(const std::string& binary_path, const SassFunctionFilter& keep,
                   const std::vector<std::string>& symbols) {
  SassDump dump;
  const std::optional<std::string> tool = find_cuobjdump();
  if (!tool) {
    dump.status = SassDumpStatus::kToolMissing;
    dump.reason = "cuobjdump not found on PATH or in /usr/local/cuda/bin (it ships with the CUDA toolkit)";
    return dump;
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(binary_path, ec)) {
    dump.reason = "no such file: " + binary_path;
    return dump;
  }
  // cuobjdump disassembles the whole cubin that holds a `-fun` function, once per function
  // it is given: one run per symbol, side by side, costs one cubin's time, not their sum.
  std::vector<std::string> runs = symbols;
  if (runs.empty()) runs.push_back("");  // "" = the whole binary
  const size_t width = std::max(1u, std::thread::hardware_concurrency());
  long long seen = 0;
  int exit_code = 0;
  std::string first_line;
  for (size_t wave = 0; wave < runs.size(); wave += width) {
    std::vector<std::future<DumpPart>> running;
    for (size_t i = wave; i < std::min(runs.size(), wave + width); ++i) {
      running.push_back(detail::beside([&, i] { return dump_part(*tool, binary_path, keep, runs[i]); }));
    }
    for (std::future<DumpPart>& f : running) {
      DumpPart part = f.get();
      if (!part.run.error.empty() && dump.reason.empty()) dump.reason = part.run.error;
      if (part.run.exit_code != 0 && part.functions_seen == 0 && exit_code == 0) {
        exit_code = part.run.exit_code;
        first_line = part.run.first_line;
      }
      seen += part.functions_seen;
      for (SassFunction& function : part.functions) dump.functions.push_back(std::move(function));
    }
  }
  spdlog::debug("cuobjdump -sass {} ({} run(s)): {} function(s), {} kept", binary_path, runs.size(), seen,
                dump.functions.size());
  if (!dump.reason.empty()) return dump;
  if (exit_code == 0 || seen > 0) {
    dump.status = SassDumpStatus::kOk;
  } else {
    dump.reason = first_line.empty() ? "cuobjdump exited with code " + std::to_string(exit_code) : first_line;
  }
  return dump;
}

}  // namespace atomq::analyzer
