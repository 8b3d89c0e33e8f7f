// Per-instruction counts of one kernel through the CUPTI SASS Metrics API: for every PC of
// the kernel, warp-level executions, lanes with the predicate on, and shared-memory
// wavefronts (actual and ideal). CUPTI 13.0 collects once per process and only for the
// first kernel launched while enabled, so the session enables itself at the first launch of
// the one kernel it is given and stops after `launch_count` launches of it: `atomq analyze`
// runs the program once more per kernel of interest (docs/architecture.md). The patched
// kernel runs several times slower; never time it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "atomq/analyzer/kernel_filter.hpp"
#include "atomq/model/instruction_profile.hpp"

namespace atomq::analyzer {

struct InstructionCollectorOptions {
  std::string symbol;          // the kernel's mangled name, exactly
  long long launch_count = 1;  // launches of it the counts sum over
  // With no symbol: the first kernel launched that this filter selects (kernel_filter.hpp).
  std::optional<KernelFilter> filter;
};

// What the session hands over: the kernel and its counts (records without opcodes: the
// caller joins them with the SASS listing).
struct InstructionCounts {
  std::string symbol;
  model::InstructionProfile profile;
};

using InstructionSink = std::function<void(const InstructionCounts&)>;
using InstructionErrorSink = std::function<void(const std::string&)>;

// Subscribes to CUPTI launch callbacks on construction; thread-safe; never throws from a
// callback (a failure goes to `on_error` and collection stops).
class InstructionProfilingSession {
 public:
  InstructionProfilingSession(InstructionCollectorOptions options, InstructionSink sink,
                              InstructionErrorSink on_error);
  ~InstructionProfilingSession();
  InstructionProfilingSession(const InstructionProfilingSession&) = delete;
  InstructionProfilingSession& operator=(const InstructionProfilingSession&) = delete;

  // Collects what the launches so far gave (fewer than launch_count: the program ended
  // first), disables and unsubscribes. Idempotent.
  void finish();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace atomq::analyzer
