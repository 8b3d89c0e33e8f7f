#include "atomq/model/sass_opcode.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace atomq::model {

namespace {

bool is_operation(const std::string& token) {
  static const char* const kOperations[] = {"ADD", "MIN",  "MAX", "CAS", "CAST", "EXCH",   "AND",
                                            "OR",  "XOR",  "INC", "DEC", "POPC", "SAFEADD"};
  return std::find(std::begin(kOperations), std::end(kOperations), token) != std::end(kOperations);
}

// "64", "U32", "S32", "F32", "F64", "F16x2", "BF16x2", "F32x4": a letter prefix, digits,
// maybe a vector width ("x2", "x4", "x8").
bool is_type(const std::string& token) {
  size_t i = 0;
  while (i < token.size() && std::isupper(static_cast<unsigned char>(token[i]))) ++i;
  const size_t digits_begin = i;
  while (i < token.size() && std::isdigit(static_cast<unsigned char>(token[i]))) ++i;
  const std::string rest = token.substr(i);
  return i > digits_begin && (rest.empty() || rest == "x2" || rest == "x4" || rest == "x8");
}

}  // namespace

SassOpcode parse_sass_opcode(const std::string& opcode) {
  SassOpcode parsed;
  size_t begin = 0;
  for (size_t i = 0; i <= opcode.size(); ++i) {
    if (i < opcode.size() && opcode[i] != '.') continue;
    const std::string token = opcode.substr(begin, i - begin);
    begin = i + 1;
    if (parsed.base.empty()) parsed.base = token;
    else if (parsed.operation.empty() && is_operation(token)) parsed.operation = token;
    else if (parsed.type.empty() && is_type(token)) parsed.type = token;
  }
  return parsed;
}

}  // namespace atomq::model
