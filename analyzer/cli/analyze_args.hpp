// The arguments of `atomq analyze` and its program half (analyze_program.cpp, CUDA builds;
// cmd_gpu_unavailable.cpp in a host-only build).
#pragma once

#include <string>
#include <vector>

#include "atomq/analyzer/injection_protocol.hpp"

namespace atomq::cli {

struct AnalyzeArgs {
  std::vector<std::string> program;
  std::string ncu_csv;
  std::string ncu_rep;  // an Nsight Compute report, read through ncu's raw page (ncu_report.hpp)
  std::string output = "atomq-analysis.json";
  std::string table;
  analyzer::CollectorOptions collector;
  std::string instructions = "auto";  // per-instruction runs: "auto", or for this many kernels (0: none)
  std::string instruction_regex;      // or for the kernels matching this
  long long instruction_launches = 1;
  int instruction_jobs = 4;  // per-instruction runs side by side
  std::vector<std::string> program_only_given;  // options given that only profiling a program uses
};

// atomq analyze [options] -- PROGRAM ARGS...: profile by injection, write the run document.
int run_program(const AnalyzeArgs& a);

}  // namespace atomq::cli
