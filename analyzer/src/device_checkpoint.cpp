#include "device_checkpoint.hpp"

#include <cupti.h>
#include <cupti_checkpoint.h>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "atomq/cuda/check.hpp"

namespace atomq::analyzer::detail {

namespace {

using NV::Cupti::Checkpoint::CUpti_Checkpoint;

struct CheckpointApi {
  CUptiResult (*save)(CUpti_Checkpoint*) = nullptr;
  CUptiResult (*restore)(CUpti_Checkpoint*) = nullptr;
  CUptiResult (*free)(CUpti_Checkpoint*) = nullptr;
  std::string missing;  // why it could not be loaded
};

// Where the toolkit keeps it: beside libcupti, in the toolkit's lib/, or on the loader's path.
void* open_library() {
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("ATOMQ_CHECKPOINT_LIBRARY")) candidates.emplace_back(path);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) != 0 && info.dli_fname != nullptr)
    candidates.push_back((std::filesystem::path(info.dli_fname).parent_path() / "libcheckpoint.so").string());
  for (const char* home : {static_cast<const char*>(std::getenv("CUDA_HOME")),
                           static_cast<const char*>(std::getenv("CUDA_PATH")), "/usr/local/cuda"})
    if (home != nullptr) candidates.push_back(std::string(home) + "/lib/libcheckpoint.so");
#ifdef ATOMQ_TOOLKIT_CHECKPOINT_LIBRARY
  candidates.emplace_back(ATOMQ_TOOLKIT_CHECKPOINT_LIBRARY);
#endif
  candidates.emplace_back("libcheckpoint.so");
  for (const std::string& c : candidates)
    if (void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
  return nullptr;
}

const CheckpointApi& api() {
  static const CheckpointApi a = [] {
    CheckpointApi out;
    void* lib = open_library();
    if (lib == nullptr) {
      out.missing = "CUPTI's checkpoint library (libcheckpoint.so) was not found (set ATOMQ_CHECKPOINT_LIBRARY)";
      return out;
    }
    out.save = reinterpret_cast<decltype(out.save)>(dlsym(lib, "cuptiCheckpointSave"));
    out.restore = reinterpret_cast<decltype(out.restore)>(dlsym(lib, "cuptiCheckpointRestore"));
    out.free = reinterpret_cast<decltype(out.free)>(dlsym(lib, "cuptiCheckpointFree"));
    if (!out.save || !out.restore || !out.free) out.missing = "libcheckpoint.so lacks the checkpoint functions";
    return out;
  }();
  return a;
}

}  // namespace

struct DeviceCheckpoint::Handle {
  NV::Cupti::Checkpoint::CUpti_Checkpoint cp{};
};

std::string DeviceCheckpoint::unavailable() { return api().missing; }

DeviceCheckpoint::DeviceCheckpoint(CUcontext ctx) : handle_(std::make_unique<Handle>()) {
  if (!api().missing.empty()) throw CudaError("CUPTI", 0, "checkpoint", api().missing);
  handle_->cp.structSize = CUpti_Checkpoint_STRUCT_SIZE;
  handle_->cp.ctx = ctx;
  handle_->cp.allowOverwrite = 0;
  handle_->cp.optimizations = NV::Cupti::Checkpoint::CUPTI_CHECKPOINT_OPT_NONE;
  ATOMQ_CUPTI(api().save(&handle_->cp));
}

DeviceCheckpoint::~DeviceCheckpoint() {
  if (handle_ && api().free) api().free(&handle_->cp);
}

void DeviceCheckpoint::restore() { ATOMQ_CUPTI(api().restore(&handle_->cp)); }

}  // namespace atomq::analyzer::detail
