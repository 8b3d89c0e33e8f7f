// Which kernels a launch filter selects, with ncu's --kernel-name semantics: "NAME" is a
// kernel's function name (or its full demangled or mangled name), "regex:RE" a regular
// expression searched in the mangled or the demangled name. Host-only: the injected
// collector and the ncu CSV import use the same filter.
//
// The expression is RE2's syntax (linear time in the name, no recursion: a name of any length
// is matched without exhausting the stack), byte by byte as std::regex read it before; what RE2
// does not accept (back references, lookaround) is refused with RE2's reason.
#pragma once

#include <memory>
#include <string>

namespace re2 {
class RE2;
}

namespace atomq::analyzer {

class KernelFilter {
 public:
  // Throws std::invalid_argument naming the spec when it is empty or its regex is invalid.
  explicit KernelFilter(const std::string& spec);
  ~KernelFilter();
  KernelFilter(const KernelFilter&);
  KernelFilter& operator=(const KernelFilter&);
  bool matches(const std::string& mangled, const std::string& demangled) const;
  const std::string& spec() const { return spec_; }

 private:
  std::string spec_;
  std::string name_;
  std::shared_ptr<const re2::RE2> regex_;  // immutable once built: copies share it
};

// "void ns::scale<float>(float*, int)" -> "scale": no return type, scope, template
// arguments or parameters (ncu's "function" name base).
std::string kernel_function_name(const std::string& demangled);

}  // namespace atomq::analyzer
