// Driver functions the analyzer needs, resolved at run time in the libcuda that the process
// has already loaded (or loads on demand): atomq itself never links libcuda.
#pragma once

#include <cuda.h>

namespace atomq::analyzer {

struct DriverApi {
  CUresult (*ctx_get_current)(CUcontext*) = nullptr;
  CUresult (*func_get_attribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
  CUresult (*occupancy)(int*, CUfunction, int, size_t) = nullptr;
  CUresult (*device_get_attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*device_get_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*kernel_get_function)(CUfunction*, CUkernel) = nullptr;
  CUresult (*func_load)(CUfunction) = nullptr;
  CUresult (*stream_is_capturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
  CUresult (*ctx_synchronize)() = nullptr;
  CUresult (*device_get_uuid)(CUuuid*, CUdevice) = nullptr;
  // What a graph holds, listed when it is instantiated (kernel_profiler_graph.cpp).
  CUresult (*graph_get_nodes)(CUgraph, CUgraphNode*, size_t*) = nullptr;
  CUresult (*graph_get_edges)(CUgraph, CUgraphNode*, CUgraphNode*, CUgraphEdgeData*, size_t*) = nullptr;
  CUresult (*graph_node_get_type)(CUgraphNode, CUgraphNodeType*) = nullptr;
  CUresult (*graph_kernel_node_get_params)(CUgraphNode, CUDA_KERNEL_NODE_PARAMS_v2*) = nullptr;
  CUresult (*func_get_name)(const char**, CUfunction) = nullptr;
  CUresult (*kernel_get_name)(const char**, CUkernel) = nullptr;
  // A graph launch repeated once per profiling pass (kernel_profiler_graph_replay.cpp).
  CUresult (*graph_launch)(CUgraphExec, CUstream) = nullptr;

  // Null members where libcuda or a symbol is missing.
  static const DriverApi& get();
};

}  // namespace atomq::analyzer
