#include "driver_api.hpp"

#include <dlfcn.h>

namespace atomq::analyzer {

namespace {

template <typename Fn>
void resolve(void* lib, const char* name, Fn*& fn) {
  fn = reinterpret_cast<Fn*>(dlsym(lib, name));
}

}  // namespace

const DriverApi& DriverApi::get() {
  static const DriverApi api = [] {
    DriverApi a;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (lib == nullptr) lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (lib == nullptr) return a;
    resolve(lib, "cuCtxGetCurrent", a.ctx_get_current);
    resolve(lib, "cuFuncGetAttribute", a.func_get_attribute);
    resolve(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor", a.occupancy);
    resolve(lib, "cuDeviceGetAttribute", a.device_get_attribute);
    resolve(lib, "cuDeviceGetName", a.device_get_name);
    resolve(lib, "cuDeviceGet", a.device_get);
    resolve(lib, "cuKernelGetFunction", a.kernel_get_function);
    resolve(lib, "cuFuncLoad", a.func_load);
    resolve(lib, "cuStreamIsCapturing", a.stream_is_capturing);
    resolve(lib, "cuCtxSynchronize", a.ctx_synchronize);
    resolve(lib, "cuDeviceGetUuid_v2", a.device_get_uuid);
    resolve(lib, "cuGraphGetNodes", a.graph_get_nodes);
    resolve(lib, "cuGraphGetEdges_v2", a.graph_get_edges);
    resolve(lib, "cuGraphNodeGetType", a.graph_node_get_type);
    resolve(lib, "cuGraphKernelNodeGetParams_v2", a.graph_kernel_node_get_params);
    resolve(lib, "cuFuncGetName", a.func_get_name);
    resolve(lib, "cuKernelGetName", a.kernel_get_name);
    resolve(lib, "cuGraphLaunch", a.graph_launch);
    return a;
  }();
  return api;
}

}  // namespace atomq::analyzer
