// Running an unmodified program under the injection collector: start it with
// libatomq_inject.so loaded by the CUDA driver, wait for it (it owns the terminal meanwhile:
// Ctrl-C goes to the program), then read the profile stream it left and interpret the
// collector's messages. Logs through spdlog; prints nothing.
#pragma once

#include <string>
#include <vector>

#include "atomq/analyzer/injection_protocol.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/run_document/profile_stream.hpp"
#include "atomq/run_document/run_document.hpp"

namespace atomq::analyzer {

struct InjectedRun {
  std::string exec_error;  // the program could not be started (e.g. not found); nothing else is set
  int exit_code = 0;       // the program's exit status, or 128 + the signal that killed it
  int signal = 0;          // the signal that killed the program (0: it exited)
  std::vector<model::KernelProfile> profiles;  // in launch order, also those before a crash
  // command, source "injected", the program's exit code, the collector's launch counts and
  // the warnings: killed by a signal, a truncated last line, a profiling error.
  run::RunInfo info;
  std::string collector_error;  // the collector's last error ("" when none)
  // A per-instruction run's counts (CollectorOptions::instruction_symbol), one per kernel.
  std::vector<run::InstructionsMessage> instructions;
};

// Runs `program` (program[0] is looked up on PATH) with the collector streaming to
// `stream_path` (replaced). Throws std::runtime_error when libatomq_inject.so cannot be found
// (ATOMQ_INJECT_LIB, else next to the running executable), the process cannot be created, or
// the stream holds a bad line other than a truncated last one.
InjectedRun run_under_injection(const std::vector<std::string>& program, const CollectorOptions& options,
                                const std::string& stream_path);

// Runs `program` once per entry of `options`, each streaming to its stream_paths entry, at
// most `jobs` at a time (started in order; runs side by side share the GPU and the terminal).
// One result per run, in the order given; throws as run_under_injection does.
// A run's stdout and stderr go to its `output_paths` entry where one is given and not "".
// A per-instruction run with a GPU gate (CollectorOptions::gpu_gate) opens it when it ends,
// so a counters run waiting on it never waits for a run that did not open it itself.
std::vector<InjectedRun> run_side_by_side(const std::vector<std::string>& program,
                                          const std::vector<CollectorOptions>& options,
                                          const std::vector<std::string>& stream_paths, int jobs,
                                          const std::vector<std::string>& output_paths = {});

// What fixes a collector error, as one sentence starting with " Fix: " ("" when unknown):
// missing counter permissions, another profiler holding CUPTI, a missing libnvperf_host.so.
std::string collector_error_fix(const std::string& collector_error);

}  // namespace atomq::analyzer
