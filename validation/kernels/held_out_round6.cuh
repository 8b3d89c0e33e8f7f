// Kernel handles and argument blocks of the held-out round 6 workloads (docs/validation.md,
// "Held-out protocol"): written after round 5's results and the privatize what-if's hot-words
// term, each with a baseline as commonly written, the fix a performance engineer would write, an
// ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// A graph layer's message aggregation: edge e adds weight[e] (whole units, so every order of
// float adds gives the same sum) into the float of node dst[e]. Degree-ordered nodes keep their
// hubs at the lowest ids.
inline constexpr std::uint32_t kAggregateHubs = 4096;  // nodes the fix keeps in shared memory
struct EdgeAggregateArgs {
  const std::uint32_t* dst;
  const float* weight;
  unsigned long long edges;
  float* node_sum;  // 0 before a run
  std::uint32_t* sink;
};
const void* edge_aggregate_global_handle();       // one global float atomicAdd per edge
const void* edge_aggregate_hub_private_handle();  // the hub nodes' sums in shared memory, the rest global
const void* edge_aggregate_no_atomics_handle();   // the same reads, summed in registers (ablation)

// Region areas of a label image: every pixel adds 1 to its label's count. Labels come in runs
// along a row, so the lanes of a warp mostly share a few labels.
struct LabelAreaArgs {
  const std::uint32_t* labels;
  unsigned long long pixels;
  std::uint32_t* area;  // 0 before a run
  std::uint32_t* sink;
};
const void* label_area_global_handle();  // one global atomicAdd per pixel
const void* label_area_warp_merged_handle();  // equal labels of a warp merged (__match_any_sync), one add each
const void* label_area_no_atomics_handle();   // the same reads, summed in registers (ablation)

// A loss reduced into one float: every sample's loss (whole units) added to one word.
struct LossSumArgs {
  const float* loss;
  unsigned long long n;
  float* total;  // 0 before a run
  std::uint32_t* sink;
};
const void* loss_sum_global_handle();        // one global float atomicAdd per sample
const void* loss_sum_block_reduced_handle();  // the block's sum (shuffles, shared memory), one add per block
const void* loss_sum_no_atomics_handle();     // the same reads, summed in registers (ablation)

}  // namespace atomq::validation::kernels
