// The commands that need a GPU, in an atomq without CUDA code. A host-only build (no CUDA
// toolkit) lists them as usual but refuses to run them, with one line saying why (exit 3, as
// when there is no GPU). The front of a CUDA build (ATOMQ_FORWARD_TO_GPU_BINARY) hands them to
// atomq-gpu (gpu_forward.hpp).
#include <fmt/format.h>

#include <memory>
#include <string>

#include "analyze_args.hpp"
#include "commands.hpp"
#if ATOMQ_FORWARD_TO_GPU_BINARY
#include "gpu_forward.hpp"
#endif

namespace atomq::cli {

namespace {

#if ATOMQ_FORWARD_TO_GPU_BINARY
int not_in_this_build(const std::string& what) { return run_gpu_binary(what); }
constexpr const char* kNote = "";
#else
constexpr const char* kNote = " (needs a GPU build; this one is host-only)";
int not_in_this_build(const std::string& what) {
  fmt::print(stderr,
             "atomq: {} needs a GPU build: this atomq was built host-only (without the CUDA toolkit); "
             "rebuild with the CUDA toolkit installed\n",
             what);
  return kExitNoGpu;
}
#endif

void add_unavailable(CLI::App& app, CommandRunner& selected, const std::string& name, const std::string& what) {
  auto* sub = app.add_subcommand(name, what + kNote);
  sub->allow_extras();
  sub->callback([&selected, name] { selected = [name] { return not_in_this_build("`atomq " + name + "`"); }; });
}

}  // namespace

void add_devices_command(CLI::App& app, CommandRunner& selected) {
  add_unavailable(app, selected, "devices", "describe the CUDA devices");
}
void add_calibrate_command(CLI::App& app, CommandRunner& selected) {
  add_unavailable(app, selected, "calibrate", "measure this GPU's service-time table");
}
void add_hist_command(CLI::App& app, CommandRunner& selected) {
  add_unavailable(app, selected, "hist", "run a built-in histogram target");
  add_unavailable(app, selected, "hist-bench", "benchmark the histogram family");
}

void add_validate_command(CLI::App& app, CommandRunner& selected) {
  add_unavailable(app, selected, "validate", "run the validation suite");
}

int run_program(const AnalyzeArgs&) { return not_in_this_build("profiling a program (analyze -- PROGRAM)"); }

}  // namespace atomq::cli
