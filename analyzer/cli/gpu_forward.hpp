// The `atomq` of a CUDA build is a front that needs no CUDA library: report, demo --replay,
// table, metrics and analyze --ncu-csv run on a machine without the toolkit. The commands that
// need the GPU (or CUPTI) run `atomq-gpu`, built from the same sources and installed beside it,
// with the same command line (docs/analyzer.md, "Without the CUDA toolkit").
#pragma once

#include <string>

namespace atomq::cli {

// main() keeps the command line to hand over.
void remember_command_line(int argc, char** argv);

// Commands that run only in atomq-gpu: forwarded before the front parses them, so their
// --help and usage errors are atomq-gpu's own.
bool is_gpu_command(const std::string& word);

// Replaces this process with atomq-gpu on the remembered command line. Returns only when that
// cannot be done, after one line naming what is missing (CUPTI, or atomq-gpu itself): exit 3.
int run_gpu_binary(const std::string& what);

}  // namespace atomq::cli
