#include "atomq/analyzer/kernel_filter.hpp"

#include <re2/re2.h>

#include <stdexcept>

namespace atomq::analyzer {

namespace {

constexpr const char* kRegexPrefix = "regex:";
constexpr int kMaxProgramSize = 200;  // RE2 instructions: "^(scale|rescale)\\(" is 17

// The index of the bracket that opens the group closing at `close` (text[close] is ')' or
// '>'), or npos.
size_t opening_bracket(const std::string& text, size_t close) {
  const char closing = text[close];
  const char opening = closing == ')' ? '(' : '<';
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (text[i] == closing) ++depth;
    if (text[i] == opening && --depth == 0) return i;
  }
  return std::string::npos;
}

// Drops a trailing bracket group ("(int*)" or "<float>") and the spaces before it.
std::string without_trailing_group(std::string name, char closing) {
  while (!name.empty() && name.back() == ' ') name.pop_back();
  if (name.empty() || name.back() != closing) return name;
  const size_t open = opening_bracket(name, name.size() - 1);
  return open == std::string::npos ? name : name.substr(0, open);
}

}  // namespace

std::string kernel_function_name(const std::string& demangled) {
  std::string name = without_trailing_group(demangled, ')');
  name = without_trailing_group(name, '>');
  int depth = 0;
  size_t start = 0;  // after the last top-level space (return type) or "::" (scope)
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<' || name[i] == '(') ++depth;
    if (name[i] == '>' || name[i] == ')') --depth;
    if (depth == 0 && name[i] == ' ') start = i + 1;
    if (depth == 0 && name[i] == ':' && i + 1 < name.size() && name[i + 1] == ':') start = i + 2;
  }
  return name.substr(start);
}

namespace {

// Bytes, as std::regex matched them (a name need not be UTF-8); nothing written to stderr (the
// filter runs inside the profiled program); the DFA's memory bounded (past it, RE2 falls back
// to its NFA, still linear and without recursion).
std::shared_ptr<const re2::RE2> compile_regex(const std::string& spec, const std::string& re) {
  re2::RE2::Options options;
  options.set_encoding(re2::RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  auto regex = std::make_shared<const re2::RE2>(re, options);
  if (!regex->ok())
    throw std::invalid_argument("kernel name filter '" + spec + "': invalid regular expression (" + regex->error() +
                                "; the syntax is RE2's: no back references or lookaround)");
  // Matching is linear in the name but also in the program's size when RE2 falls back from its
  // DFA to its NFA: ".*.{1000}1" took 148 s on a 40 KB name in the fuzz build. Names are
  // matched at every launch, inside the profiled program, so the program is kept small.
  if (regex->ProgramSize() > kMaxProgramSize)
    throw std::invalid_argument("kernel name filter '" + spec + "': regular expression too large (" +
                                std::to_string(regex->ProgramSize()) + " RE2 instructions, at most " +
                                std::to_string(kMaxProgramSize) + "; a counted repetition such as {1000}?)");
  return regex;
}

}  // namespace

KernelFilter::~KernelFilter() = default;
KernelFilter::KernelFilter(const KernelFilter&) = default;
KernelFilter& KernelFilter::operator=(const KernelFilter&) = default;

KernelFilter::KernelFilter(const std::string& spec) : spec_(spec) {
  if (spec.rfind(kRegexPrefix, 0) == 0) {
    regex_ = compile_regex(spec, spec.substr(std::string(kRegexPrefix).size()));
  } else {
    name_ = spec;
  }
  if (spec.empty() || (regex_ && spec.size() == std::string(kRegexPrefix).size()))
    throw std::invalid_argument("kernel name filter '" + spec + "': expected NAME or regex:EXPRESSION");
}

bool KernelFilter::matches(const std::string& mangled, const std::string& demangled) const {
  if (regex_) return re2::RE2::PartialMatch(mangled, *regex_) || re2::RE2::PartialMatch(demangled, *regex_);
  return name_ == mangled || name_ == demangled || name_ == kernel_function_name(demangled) ||
         name_ == without_trailing_group(demangled, ')');
}

}  // namespace atomq::analyzer
