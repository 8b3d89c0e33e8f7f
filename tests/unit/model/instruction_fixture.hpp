// Per-instruction records built in code for the atomic-site tests (instruction_profile.hpp).
#pragma once

#include "atomq/model/instruction_profile.hpp"

namespace atomq::test {

// One SASS record: its offset, opcode and counts; wavefronts > 0 for shared-memory ones (ideal:
// one per execution).
inline model::InstructionRecord rec(long long offset, const char* opcode, double executions, double lanes,
                                    double wavefronts = 0, const char* operands = "", const char* predicate = "") {
  model::InstructionRecord r;
  r.offset = offset;
  r.opcode = opcode;
  r.operands = operands;
  r.predicate = predicate;
  r.executions = executions;
  r.lanes = lanes;
  r.wavefronts = wavefronts;
  r.wavefronts_ideal = wavefronts > 0 ? executions : 0;
  return r;
}

}  // namespace atomq::test
