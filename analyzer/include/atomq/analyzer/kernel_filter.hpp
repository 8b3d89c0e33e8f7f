// Which kernels a launch filter selects, with ncu's --kernel-name semantics: "NAME" is a
// kernel's function name (or its full demangled or mangled name), "regex:RE" a regular
// expression searched in the mangled or the demangled name. Host-only: the injected
// collector and the ncu CSV import use the same filter.
#pragma once

#include <optional>
#include <regex>
#include <string>

namespace atomq::analyzer {

class KernelFilter {
 public:
  // Throws std::invalid_argument naming the spec when it is empty or its regex is invalid.
  explicit KernelFilter(const std::string& spec);
  bool matches(const std::string& mangled, const std::string& demangled) const;
  const std::string& spec() const { return spec_; }

 private:
  std::string spec_;
  std::string name_;
  std::optional<std::regex> regex_;
};

// "void ns::scale<float>(float*, int)" -> "scale": no return type, scope, template
// arguments or parameters (ncu's "function" name base).
std::string kernel_function_name(const std::string& demangled);

}  // namespace atomq::analyzer
