// Per-instruction counts of one kernel (the CUPTI SASS Metrics API, collected in a run of the
// program of its own: analyzer/src/instruction_profiler.cpp), joined with the kernel's SASS
// listing: each PC's opcode, and the backward-branch loops. Part of the kernel-profile
// document (kernel_profile.hpp); plain C++.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "atomq/common/enum_names.hpp"

namespace atomq::model {

// Whose counts a launch's per-instruction profile holds: its own (the launch the per-instruction
// run counted), or those of another launch of the same kernel, whose structure (loop entries,
// lanes per site, the op executed) derives this launch's figures from its own counters
// (derived_sites.cpp; docs/model.md, "Measured and derived launches").
enum class InstructionBasis { kMeasured, kDerived };
constexpr std::array<EnumName<InstructionBasis>, 2> enum_names(InstructionBasis) {
  return {{{InstructionBasis::kMeasured, "measured"}, {InstructionBasis::kDerived, "derived"}}};
}

struct InstructionRecord {
  long long offset = 0;         // bytes from the function's start (cuobjdump's /*0120*/)
  std::string opcode;           // "ATOMS.CAST.SPIN"; "" when the listing lacks this PC
  std::string operands;         // as listed, comma-separated ("P0, [R3], R5, R6")
  std::string predicate;        // "@P0", "@!P1" or ""
  std::string source;           // the call site "file:line" from the line table; "" without one
  double executions = 0;        // warp-level (smsp__sass_inst_executed)
  double lanes = 0;             // lanes with the predicate on (…_thread_inst_executed_pred_on)
  double wavefronts = 0;        // shared-memory wavefronts (…_wavefronts_mem_shared)
  double wavefronts_ideal = 0;  // the same without bank conflicts (…_ideal)
};

struct InstructionLoop {
  long long head = 0;    // the backward branch's target
  long long branch = 0;  // the backward branch
  bool contains(long long offset) const { return offset >= head && offset <= branch; }
};

struct InstructionProfile {
  long long launches = 0;                  // launches the counts sum over
  // The first of them: the kernel's launch in its process's program order, counted from 0 (the
  // per-instruction run counts launches first_launch .. first_launch + launches - 1).
  long long first_launch = 0;
  double threads_per_launch = 0;           // grid x block of the counted launches, mean; 0 unknown
  InstructionBasis basis = InstructionBasis::kMeasured;
  // A few counters of the measured launch, from the counter run (kept for derived launches:
  // ratios the per-instruction counts cannot give, e.g. L2 CAS requests per ATOMG instruction).
  std::map<std::string, double> measured_counters;
  std::vector<InstructionRecord> records;  // every PC with counts, in offset order
  std::vector<InstructionLoop> loops;      // from the SASS listing; empty without one
  bool has_listing = false;                // opcodes and loops come from the kernel's SASS
  std::string source_lines_reason;         // why the records have no source line ("" when they do)

  bool counted(long long kernel_launch) const {
    return kernel_launch >= first_launch && kernel_launch < first_launch + (launches > 0 ? launches : 1);
  }
};

}  // namespace atomq::model
