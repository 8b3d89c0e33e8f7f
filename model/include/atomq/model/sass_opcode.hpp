// A SASS opcode split into what atomq reads of it: the base, the atomic operation and the type.
// REDG.E.ADD.F32.FTZ.RN.STRONG.GPU = base REDG, operation ADD, type F32; the memory-order,
// scope and rounding modifiers do not change which unit serves it. Plain C++: the analyzer's
// classifier (analyzer/src/sass_atomics.cpp) and the model's paths (atomic_paths.cpp) share it.
#pragma once

#include <string>

namespace atomq::model {

struct SassOpcode {
  std::string base;       // "REDG"
  std::string operation;  // "ADD"; "" when none of the atomic operations
  std::string type;       // "" (32-bit integer), "U32", "64", "F32", "S32", "F32x4", ...
};

SassOpcode parse_sass_opcode(const std::string& opcode);

}  // namespace atomq::model
