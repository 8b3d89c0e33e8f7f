// libatomq_profile.so: in-process profiling behind a C interface, so that any language (Python's
// atomq.profile() through ctypes, whatever the interpreter's version) can profile the kernels
// its own process launches between two calls. Nothing throws across this interface.
//
//   int atomq_profile_begin(const char* options_json, char* error, size_t error_size);
//   int atomq_profile_end(const char* output_path, char* error, size_t error_size);
//
// options_json (every field optional): {"kernel": "NAME or regex:RE", "launch_skip": N,
// "launch_count": N, "nvtx_include": [...], "nvtx_exclude": [...], "profile_from_start": bool,
// "table": "PATH", "command": "what the run is called"}. End writes the run document
// (atomq.analysis_run, docs/analyzer.md) with every launch's analysis on the selected table.
// Both return 0, or 1 with one line in `error`.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "atomq/analyzer/cupti_device.hpp"
#include "atomq/analyzer/kernel_profiler.hpp"
#include "atomq/analyzer/loaded_code.hpp"
#include "atomq/analyzer/sass_hints.hpp"
#include "atomq/calibration/service_table.hpp"
#include "atomq/cuda/device_query.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/model/table_selection.hpp"
#include "atomq/run_document/run_document.hpp"

namespace {

namespace an = atomq::analyzer;
namespace fs = std::filesystem;
using atomq::model::KernelProfile;

struct Capture {
  std::unique_ptr<an::KernelProfilingSession> session;
  std::vector<KernelProfile> profiles;
  std::mutex profiles_mutex;
  std::string table, command, code_directory;
};

std::mutex g_mutex;
std::unique_ptr<Capture> g_capture;  // one at a time: CUPTI allows one subscriber per process

void set_error(char* error, size_t size, const std::string& text) {
  if (error != nullptr && size > 0) std::snprintf(error, size, "%s", text.c_str());
}

an::ProfilerOptions options_from(const nlohmann::json& o, Capture& c) {
  an::ProfilerOptions options;
  if (const std::string k = o.value("kernel", std::string()); !k.empty()) options.kernel_filter = an::KernelFilter(k);
  options.launch_skip = o.value("launch_skip", 0LL);
  options.launch_count = o.value("launch_count", -1LL);
  const auto include = o.value("nvtx_include", std::vector<std::string>());
  const auto exclude = o.value("nvtx_exclude", std::vector<std::string>());
  if (!include.empty() || !exclude.empty()) options.nvtx_filter.emplace(include, exclude);
  options.profile_from_start = o.value("profile_from_start", true);
  c.table = o.value("table", std::string());
  c.command = o.value("command", std::string("atomq.profile()"));
  // The process's kernels live in its libraries and run-time modules: keep their code for the SASS.
  c.code_directory = (fs::temp_directory_path() / ("atomq-profile-" + std::to_string(getpid()))).string();
  options.loaded_code_directory = c.code_directory;
  return options;
}

// The analyses on the chip's table (or `table`), the SASS hints from the code kept, the peak DRAM
// bandwidth from the device: what `atomq analyze` gives a profile before the model reads it.
void write_document(Capture& c, const std::string& output, const atomq::run::SessionStats& stats) {
  std::vector<an::SassFunction> functions;
  if (!c.profiles.empty()) an::fill_hints_from_loaded_code(c.profiles, c.code_directory, functions);
  std::error_code ec;
  fs::remove_all(c.code_directory, ec);
  an::fill_dram_peak(c.profiles);
  const std::string chip = c.profiles.empty() ? "" : c.profiles.front().device.chip;
  const std::string gpu = c.profiles.empty() ? "" : c.profiles.front().device.name;
  const atomq::model::SelectedTable table = atomq::model::select_table(c.table, chip, gpu);
  const atomq::model::ServiceTimeModel service(table.table);
  std::vector<atomq::model::KernelAnalysis> analyses;
  for (const KernelProfile& p : c.profiles) analyses.push_back(atomq::model::analyze(p, service));
  atomq::run::RunInfo info;
  info.command = c.command;
  info.source = "in_process";
  info.table_path = table.path;
  info.table_chip = table.table.provenance.device.chip;
  info.table_digest = atomq::calibration::service_table_digest(table.table);
  info.warnings = table.warnings;
  info.launches = stats;
  atomq::run::write_run_document(output, info, c.profiles, analyses);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int atomq_profile_begin(const char* options_json, char* error,
                                                               size_t error_size) {
  std::lock_guard<std::mutex> lock(g_mutex);
  try {
    if (g_capture) throw std::runtime_error("atomq.profile: a profile is already open in this process");
    atomq::device_count();  // no driver or no GPU: CudaError says which, before CUPTI is touched
    auto c = std::make_unique<Capture>();
    const nlohmann::json o = nlohmann::json::parse(options_json ? options_json : "{}");
    Capture* raw = c.get();
    c->session = std::make_unique<an::KernelProfilingSession>(options_from(o, *c), [raw](const KernelProfile& p) {
      std::lock_guard<std::mutex> l(raw->profiles_mutex);
      raw->profiles.push_back(p);
    });
    g_capture = std::move(c);
    return 0;
  } catch (const std::exception& e) {
    set_error(error, error_size, std::string("atomq.profile: cannot start profiling: ") + e.what());
  } catch (...) {
    set_error(error, error_size, "atomq.profile: unknown error");
  }
  return 1;
}

__attribute__((visibility("default"))) int atomq_profile_end(const char* output_path, char* error,
                                                             size_t error_size) {
  std::lock_guard<std::mutex> lock(g_mutex);
  try {
    if (!g_capture) throw std::runtime_error("atomq.profile: no profile is open");
    std::unique_ptr<Capture> c = std::move(g_capture);
    c->session->finish();
    const atomq::run::SessionStats stats = c->session->stats();
    c->session.reset();
    write_document(*c, output_path ? output_path : "", stats);
    return 0;
  } catch (const std::exception& e) {
    set_error(error, error_size, e.what());
  } catch (...) {
    set_error(error, error_size, "atomq.profile: unknown error");
  }
  return 1;
}

}  // extern "C"
