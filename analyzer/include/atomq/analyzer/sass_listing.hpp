// The SASS of a binary's kernels, as the toolkit's `cuobjdump -sass` prints it: functions
// (mangled name, arch) and their instructions (offset, predicate, opcode, operands, branch
// target). The parser is a pure function over text and never throws on odd text: lines it
// does not recognize are skipped. Running cuobjdump never fails an analysis either: a missing
// tool or a binary without device code comes back as a status with its reason.
// Logs through spdlog; prints nothing.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "atomq/common/enum_names.hpp"

namespace atomq::analyzer {

struct SassInstruction {
  long long offset = 0;               // byte offset in the function: the /*0120*/ field
  std::string predicate;              // "@P0", "@!PT"; "" when unconditional
  std::string opcode;                 // with its modifiers: "REDG.E.ADD.STRONG.GPU"
  std::vector<std::string> operands;  // "desc[UR4][R2.64]", "R5"
  std::optional<long long> branch_target;  // a BRA's immediate target offset
};

struct SassFunction {
  std::string mangled_name;
  std::string arch;  // "sm_90", "sm_90a"; "" when the listing did not say
  std::vector<SassInstruction> instructions;  // in offset order
};

// A loop closed by a backward branch: the instructions from `start` (the branch target) to
// `end` (the branch itself), both offsets inclusive.
struct SassLoop {
  long long start = 0;
  long long end = 0;
  bool contains(long long offset) const { return offset >= start && offset <= end; }
};

// Which functions to keep while parsing (mangled name, arch): a large binary's listing holds
// many kernels the caller does not need. Keeps everything when empty.
using SassFunctionFilter = std::function<bool(const std::string& mangled_name, const std::string& arch)>;

// Line by line, so a long listing never sits in memory as one text.
class SassListingParser {
 public:
  explicit SassListingParser(SassFunctionFilter keep = {}) : keep_(std::move(keep)) {}
  void add_line(std::string_view line);
  std::vector<SassFunction> finish();  // the functions kept, in listing order
  long long functions_seen() const { return functions_seen_; }  // kept or not

 private:
  SassFunctionFilter keep_;
  std::string arch_;
  bool keeping_ = false;
  long long functions_seen_ = 0;
  std::vector<SassFunction> functions_;
};

std::vector<SassFunction> parse_sass_listing(std::string_view text, const SassFunctionFilter& keep = {});

// One instruction line ("/*0120*/  @P0 REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;"), or
// nullopt when the line is not one (an encoding line, a header, garbage).
std::optional<SassInstruction> parse_sass_instruction(std::string_view line);

// Every backward branch's loop, in branch order (a branch to itself, the idle loop after
// EXIT, is not a loop). Nested loops nest: the inner one's range lies inside the outer's.
std::vector<SassLoop> backward_branch_loops(const SassFunction& function);

// "sm_90" and "sm_90a" -> 90; nullopt for anything else.
std::optional<int> sass_arch_number(const std::string& arch);

// The function of that mangled name whose arch suits a device of compute capability
// `major`.`minor`: the exact arch, else the newest earlier one of the same major (binary
// compatible); nullptr when none (the program then runs a JIT-compiled PTX, unseen here).
// major <= 0 (device unknown): the newest arch listed.
const SassFunction* find_sass_function(const std::vector<SassFunction>& functions,
                                       const std::string& mangled_name, int major, int minor);

enum class SassDumpStatus { kOk, kToolMissing, kFailed };
constexpr std::array<EnumName<SassDumpStatus>, 3> enum_names(SassDumpStatus) {
  return {{{SassDumpStatus::kOk, "ok"},
           {SassDumpStatus::kToolMissing, "tool_missing"},
           {SassDumpStatus::kFailed, "failed"}}};
}

struct SassDump {
  SassDumpStatus status = SassDumpStatus::kFailed;
  std::string reason;  // why not kOk: no cuobjdump, no device code, the tool's first message
  std::vector<SassFunction> functions;
};

// A CUDA toolkit tool (cuobjdump, nvdisasm) to run: on PATH, else /usr/local/cuda/bin;
// nullopt when neither has it.
std::optional<std::string> find_cuda_tool(const std::string& name);
std::optional<std::string> find_cuobjdump();

// Runs `cuobjdump -sass binary_path` and parses what it prints; with `symbols`, only those
// functions are disassembled (`-fun`), which is what keeps a large binary's dump short.
// Never throws.
SassDump dump_sass(const std::string& binary_path, const SassFunctionFilter& keep = {},
                   const std::vector<std::string>& symbols = {});

}  // namespace atomq::analyzer
