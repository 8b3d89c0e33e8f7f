#include "atomq/analyzer/sass_hints.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iterator>
#include <map>
#include <set>

#include "atomq/analyzer/kernel_profiler.hpp"  // demangle
#include "atomq/common/atomic_file.hpp"
#include "atomq/analyzer/loaded_code.hpp"
#include "tool_run.hpp"

namespace atomq::analyzer {

namespace {

// The profiles' kernel names that `mangled` may stand for: itself, and its demangled form.
bool wanted(const std::set<std::string>& names, const std::string& mangled) {
  return names.count(mangled) > 0 || names.count(demangle(mangled)) > 0;
}

}  // namespace

bool apply_atomic_hints(const SassAtomics& atomics, model::KernelProfile& profile) {
  bool changed = false;
  if (!profile.shared_atomic_variant && atomics.shared_variant) {
    profile.shared_atomic_variant = atomics.shared_variant;
    changed = true;
  }
  if (!profile.shared_atomic_lane_bytes && atomics.shared_lane_bytes) {
    profile.shared_atomic_lane_bytes = atomics.shared_lane_bytes;
    changed = true;
  }
  if (profile.sass_atomic_paths.empty() && !atomics.paths.empty()) {
    profile.sass_atomic_paths = atomics.paths;
    changed = true;
  }
  if (!profile.shared_cas_spin && atomics.shared_cast_spin > 0) {
    profile.shared_cas_spin = true;
    changed = true;
  }
  if (!profile.global_atomic_warp_aggregated && atomics.global_matched() > 0) {
    profile.global_atomic_warp_aggregated = atomics.every_global_warp_aggregated();
    changed = true;
  }
  if (!profile.global_atomic_exch && atomics.global_matched() > 0) {
    profile.global_atomic_exch = atomics.has_global_exchange();
    changed = true;
  }
  if (!profile.global_atomic_op && atomics.dominant_global) {
    profile.global_atomic_op = atomics.dominant_global;
    profile.global_atomic_op_stands_in_for = atomics.dominant_global_stands_in_for;
    changed = true;
  }
  return changed;
}

SassHintSummary fill_hints(std::vector<model::KernelProfile>& profiles, const std::vector<SassFunction>& functions) {
  std::map<std::string, std::string> mangled_of;  // a profile's kernel name -> the mangled name
  for (const SassFunction& f : functions) {
    mangled_of.emplace(f.mangled_name, f.mangled_name);
    mangled_of.emplace(demangle(f.mangled_name), f.mangled_name);
  }
  std::set<std::string> kernels, in_binary, hinted;
  for (model::KernelProfile& profile : profiles) {
    kernels.insert(profile.kernel_name);
    const auto name = mangled_of.find(profile.kernel_name);
    const SassFunction* function =
        name == mangled_of.end() ? nullptr
                                 : find_sass_function(functions, name->second, profile.device.compute_capability_major,
                                                      profile.device.compute_capability_minor);
    if (function == nullptr) {
      spdlog::debug("no SASS for {} (sm_{}{}) in the binary: loaded at run time or JIT-compiled; no hint",
                    profile.kernel_name, profile.device.compute_capability_major,
                    profile.device.compute_capability_minor);
      continue;
    }
    in_binary.insert(profile.kernel_name);
    const SassAtomics atomics = classify_atomics(*function);
    if (apply_atomic_hints(atomics, profile) || profile.shared_atomic_variant || profile.global_atomic_op)
      hinted.insert(profile.kernel_name);
  }
  SassHintSummary summary;
  summary.kernels = static_cast<int>(kernels.size());
  summary.kernels_in_binary = static_cast<int>(in_binary.size());
  summary.kernels_hinted = static_cast<int>(hinted.size());
  return summary;
}

SassHintSummary fill_hints_from_binary(std::vector<model::KernelProfile>& profiles, const std::string& binary_path,
                                       std::vector<SassFunction>* functions) {
  if (profiles.empty()) return {SassDumpStatus::kOk, "", 0, 0, 0};
  std::set<std::string> names;
  for (const model::KernelProfile& p : profiles) names.insert(p.kernel_name);
  SassHintSummary summary;
  if (binary_path.empty()) {
    spdlog::info("no atomic hints from SASS: the program's executable was not found");
    summary.reason = "the program's executable was not found";
    return summary;
  }
  const SassFunctionFilter keep = [&names](const std::string& mangled, const std::string&) {
    return wanted(names, mangled);
  };
  // Only the profiled kernels when every profile knows its symbol; the whole binary otherwise,
  // or when the restricted dump found none of them.
  std::vector<std::string> symbols;
  for (const model::KernelProfile& p : profiles)
    if (!p.symbol.empty() && std::find(symbols.begin(), symbols.end(), p.symbol) == symbols.end())
      symbols.push_back(p.symbol);
  const bool every_symbol =
      std::all_of(profiles.begin(), profiles.end(), [](const auto& p) { return !p.symbol.empty(); });
  SassDump dump;
  if (every_symbol) dump = dump_sass(binary_path, keep, symbols);
  if (!every_symbol || dump.status != SassDumpStatus::kOk || dump.functions.empty()) {
    if (every_symbol) spdlog::debug("cuobjdump -fun found none of the {} kernel(s): dumping the whole binary", symbols.size());
    dump = dump_sass(binary_path, keep);
  }
  if (dump.status == SassDumpStatus::kOk) summary = fill_hints(profiles, dump.functions);
  if (functions) *functions = dump.functions;
  summary.status = dump.status;
  summary.reason = dump.reason;
  if (dump.status != SassDumpStatus::kOk) {
    spdlog::info("no atomic hints from SASS: {}", dump.reason);
  } else {
    spdlog::info("atomic hints from the SASS of {}: {} of {} kernel(s) ({} found in the binary)", binary_path,
                 summary.kernels_hinted, summary.kernels, summary.kernels_in_binary);
  }
  return summary;
}

SassHintSummary fill_hints_from_loaded_code(std::vector<model::KernelProfile>& profiles, const std::string& directory,
                                            std::vector<SassFunction>& functions) {
  std::set<std::string> missing;
  std::vector<std::string> symbols;  // the missing kernels' mangled names
  for (const model::KernelProfile& p : profiles) {
    const std::string& name = p.symbol.empty() ? p.kernel_name : p.symbol;
    if (!model::executes_atomics(p)) continue;  // no atomic, no hint to take from its SASS
    if (find_sass_function(functions, name, p.device.compute_capability_major, p.device.compute_capability_minor))
      continue;
    missing.insert(p.kernel_name);
    if (!p.symbol.empty() && std::find(symbols.begin(), symbols.end(), p.symbol) == symbols.end())
      symbols.push_back(p.symbol);
  }
  const std::vector<std::string> files = saved_code_objects(directory);
  if (missing.empty() || files.empty()) return {SassDumpStatus::kOk, "", 0, 0, 0};
  // Only the missing kernels each object defines (`-fun`): a PyTorch module of 168 functions
  // takes 14 s to list whole and 0.6 s for one kernel (H200 machine, docs/analyzer.md). One
  // cuobjdump per object, side by side: one after another, 11 objects took 4.8 s.
  std::vector<std::future<SassDump>> dumps;
  for (const std::string& file : files) {
    std::set<std::string> defined;
    try {
      defined = defined_functions(read_text_file(file));
    } catch (const std::runtime_error& e) {
      spdlog::info("a saved code object is not read: {}", e.what());
      continue;
    }
    std::vector<std::string> named;
    std::copy_if(symbols.begin(), symbols.end(), std::back_inserter(named),
                 [&defined](const std::string& s) { return defined.count(s) > 0; });
    if (named.empty()) continue;
    dumps.push_back(detail::beside([file, named] { return dump_sass(file, {}, named); }));
  }
  std::vector<SassFunction> found;
  SassDump last_failure;
  for (auto& pending : dumps) {
    SassDump dump = pending.get();
    if (dump.status != SassDumpStatus::kOk) last_failure = dump;
    std::move(dump.functions.begin(), dump.functions.end(), std::back_inserter(found));
  }
  SassHintSummary summary = fill_hints(profiles, found);
  summary.status = found.empty() && !last_failure.reason.empty() ? last_failure.status : SassDumpStatus::kOk;
  summary.reason = found.empty() ? last_failure.reason : "";
  spdlog::info("atomic hints from the SASS of {} code object(s) the program loaded: {} of {} kernel(s) ({} found)",
               files.size(), summary.kernels_hinted, missing.size(), summary.kernels_in_binary);
  std::move(found.begin(), found.end(), std::back_inserter(functions));
  return summary;
}

std::string resolve_program_path(const std::string& program) {
  namespace fs = std::filesystem;
  if (program.empty()) return "";
  std::error_code ec;
  if (program.find('/') != std::string::npos) return fs::is_regular_file(program, ec) ? program : "";
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    const fs::path candidate = fs::path(std::string(dirs.substr(0, colon))) / program;
    if (!candidate.parent_path().empty() && fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  return "";
}

}  // namespace atomq::analyzer
