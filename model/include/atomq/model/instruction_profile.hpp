// Per-instruction counts of one kernel (the CUPTI SASS Metrics API, collected in a run of the
// program of its own: analyzer/src/instruction_profiler.cpp), joined with the kernel's SASS
// listing: each PC's opcode, and the backward-branch loops. Part of the kernel-profile
// document (kernel_profile.hpp); plain C++.
#pragma once

#include <string>
#include <vector>

namespace atomq::model {

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
  std::vector<InstructionRecord> records;  // every PC with counts, in offset order
  std::vector<InstructionLoop> loops;      // from the SASS listing; empty without one
  bool has_listing = false;                // opcodes and loops come from the kernel's SASS
  std::string source_lines_reason;         // why the records have no source line ("" when they do)
};

}  // namespace atomq::model
