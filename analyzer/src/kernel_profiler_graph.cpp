// The kernel nodes of a CUDA graph, listed when the graph is instantiated, in the order they
// run, and whether a launch of it may be repeated per profiling pass: a launch of the
// executable graph names no node (kernel_profiler.cpp profiles it as one range).
#include <algorithm>
#include <map>
#include <set>

#include "atomq/cuda/check.hpp"
#include "driver_api.hpp"
#include "kernel_profiler_internal.hpp"

namespace atomq::analyzer::detail {

namespace {

struct NodeGraph {
  std::vector<CUgraphNode> nodes;
  std::vector<std::vector<size_t>> next;  // edges, by node index
};

bool read_nodes(const DriverApi& api, CUgraph graph, NodeGraph& g) {
  size_t count = 0, edges = 0;
  if (api.graph_get_nodes(graph, nullptr, &count) != CUDA_SUCCESS) return false;
  g.nodes.resize(count);
  if (count > 0 && api.graph_get_nodes(graph, g.nodes.data(), &count) != CUDA_SUCCESS) return false;
  if (api.graph_get_edges(graph, nullptr, nullptr, nullptr, &edges) != CUDA_SUCCESS) return false;
  std::vector<CUgraphNode> from(edges), to(edges);
  if (edges > 0 && api.graph_get_edges(graph, from.data(), to.data(), nullptr, &edges) != CUDA_SUCCESS) return false;
  std::map<CUgraphNode, size_t> index;
  for (size_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i]] = i;
  g.next.assign(g.nodes.size(), {});
  for (size_t e = 0; e < edges; ++e) {
    const auto a = index.find(from[e]), b = index.find(to[e]);
    if (a == index.end() || b == index.end()) return false;
    g.next[a->second].push_back(b->second);
  }
  return true;
}

// Dependencies first, ties in the graph's node order; empty when the edges form a cycle.
std::vector<size_t> execution_order(const NodeGraph& g) {
  std::vector<int> waiting(g.nodes.size(), 0);
  for (const auto& out : g.next)
    for (size_t b : out) ++waiting[b];
  std::set<size_t> ready;
  for (size_t i = 0; i < waiting.size(); ++i)
    if (waiting[i] == 0) ready.insert(i);
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (size_t b : g.next[i])
      if (--waiting[b] == 0) ready.insert(b);
  }
  if (order.size() != g.nodes.size()) order.clear();
  return order;
}

bool kernel_node(const DriverApi& api, CUgraphNode node, PendingLaunch& p) {
  CUDA_KERNEL_NODE_PARAMS_v2 params{};
  if (api.graph_kernel_node_get_params(node, &params) != CUDA_SUCCESS) return false;
  const char* name = nullptr;
  if (params.func != nullptr) {
    p.function = params.func;
    if (api.func_get_name) api.func_get_name(&name, params.func);
  } else {
    p.function = reinterpret_cast<CUfunction>(params.kern);  // complete_launch_config resolves it
    if (api.kernel_get_name && params.kern) api.kernel_get_name(&name, params.kern);
  }
  p.name = name != nullptr && *name != '\0' ? name : kUnknownKernel;
  p.launch.grid = {params.gridDimX, params.gridDimY, params.gridDimZ};
  p.launch.block = {static_cast<int>(params.blockDimX), static_cast<int>(params.blockDimY),
                    static_cast<int>(params.blockDimZ)};
  p.launch.shared_mem_bytes_per_block = params.sharedMemBytes;
  return true;
}

// Nodes a repeated launch may run again without a trace outside device memory: their effect is
// undone by restoring the context's memory, or the same again.
std::string replay_blocker(CUgraphNodeType type) {
  switch (type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
    case CU_GRAPH_NODE_TYPE_MEMCPY:
    case CU_GRAPH_NODE_TYPE_MEMSET:
    case CU_GRAPH_NODE_TYPE_EMPTY:
      return "";
    case CU_GRAPH_NODE_TYPE_HOST:
      return "it holds a host callback node";
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      return "it holds an event node";
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      return "it allocates or frees memory";
    default:
      return "it holds a semaphore, memory-operation or other node with effects outside device memory";
  }
}

}  // namespace

GraphKernels list_graph_kernels(CUgraph graph, size_t max_kernels) {
  GraphKernels out;
  const DriverApi& api = DriverApi::get();
  if (!api.graph_get_nodes || !api.graph_get_edges || !api.graph_node_get_type || !api.graph_kernel_node_get_params) {
    out.unlisted = "the CUDA driver lacks the graph functions atomq lists kernel nodes with";
    return out;
  }
  NodeGraph g;
  if (!read_nodes(api, graph, g)) {
    out.unlisted = "the graph's nodes could not be read";
    return out;
  }
  const std::vector<size_t> order = execution_order(g);
  if (order.empty() && !g.nodes.empty()) {
    out.unlisted = "the graph's edges form a cycle";
    return out;
  }
  for (size_t i : order) {
    CUgraphNodeType type{};
    if (api.graph_node_get_type(g.nodes[i], &type) != CUDA_SUCCESS) type = CU_GRAPH_NODE_TYPE_EMPTY;
    if (type == CU_GRAPH_NODE_TYPE_GRAPH || type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
      out.unlisted = "the graph holds a child graph or a conditional node";
      return out;
    }
    if (type != CU_GRAPH_NODE_TYPE_KERNEL) {
      if (out.replay_blocker.empty()) out.replay_blocker = replay_blocker(type);
      continue;
    }
    PendingLaunch p;
    if (!kernel_node(api, g.nodes[i], p)) {
      out.unlisted = "a kernel node's parameters could not be read";
      return out;
    }
    out.kernels.push_back(std::move(p));
  }
  if (out.kernels.size() > max_kernels) {
    out.unlisted = "the graph has " + std::to_string(out.kernels.size()) + " kernel nodes, more than the " +
                   std::to_string(max_kernels) + " atomq lists";
    out.kernels.clear();
    return out;
  }
  return out;
}

void enable_graph_callbacks(CUpti_SubscriberHandle subscriber) {
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz})
    ATOMQ_CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
  for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED,
                              CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING})
    ATOMQ_CUPTI(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, id));
}

}  // namespace atomq::analyzer::detail
