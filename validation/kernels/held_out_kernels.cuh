// Kernel handles and argument blocks of the held-out round 2 workloads (docs/validation.md,
// "Held-out protocol"): eight atomic workloads written after the model, each with a baseline as
// commonly written, the fix a performance engineer would write, and an ablation.
#pragma once

#include <cstdint>

namespace atomq::validation::kernels {

// Queue pushes through one tail counter (held_out_queues.cu).
// A BFS level's frontier: the target of every edge whose vertex is unvisited is pushed.
struct FrontierArgs {
  const std::uint32_t* targets;  // edge targets
  unsigned long long n;
  const std::uint8_t* visited;   // one byte per vertex
  std::uint32_t* out;            // the frontier (any order), n slots
  std::uint32_t* tail;           // its length; 0 before a run
  std::uint32_t* sink;
};
const void* frontier_push_global_handle();      // one atomicAdd on the tail per pushed vertex
const void* frontier_push_warp_handle();        // one atomicAdd per warp (ballot, popc, shuffle)
const void* frontier_push_no_atomics_handle();  // pushed to its own edge's slot (ablation)

// Tasks dequeued from a ticket: task t sums words [t * kTaskWords, (t + 1) * kTaskWords).
inline constexpr std::uint32_t kTaskWords = 16;
struct TicketArgs {
  const std::uint32_t* data;
  std::uint32_t tasks;
  std::uint32_t* out;      // one sum per task
  std::uint32_t* ticket;   // 0 before a run
  const std::uint32_t* step;  // step[0] = 1: the ticket's increment, read from memory
};
const void* ticket_per_thread_handle();  // each thread takes one task per atomicAdd
const void* ticket_per_warp_handle();    // lane 0 takes 32 tasks per atomicAdd for its warp
const void* ticket_static_handle();      // tasks assigned by thread index (ablation)

// Compaction within a block through a shared tail, then one global append per tile.
inline constexpr std::uint32_t kCompactTile = 4096;  // values per block step
struct CompactArgs {
  const std::uint32_t* values;
  unsigned long long n;      // a multiple of kCompactTile
  std::uint32_t* out;        // n slots
  std::uint32_t* tail;       // 0 before a run
  std::uint32_t* sink;
};
const void* compact_shared_tail_handle();  // one shared atomicAdd per kept value
const void* compact_warp_tail_handle();    // one shared atomicAdd per warp (ballot, popc)
const void* compact_no_atomics_handle();   // each kept value to its own slot of the tile (ablation)

// Triangle counting into one global counter (held_out_counting.cu): thread per oriented edge
// (u < v), the forward neighbour lists of u and v merged.
struct TriangleArgs {
  const std::uint32_t* offsets;    // CSR of forward neighbours (sorted), vertices + 1
  const std::uint32_t* neighbours;
  const std::uint32_t* edge_u;     // the edges, u < v
  const std::uint32_t* edge_v;
  unsigned long long edges;
  unsigned long long* triangles;   // 0 before a run
  std::uint32_t* sink;
};
const void* triangle_global_handle();      // one atomicAdd per triangle found
const void* triangle_warp_sum_handle();    // counted per thread, one atomicAdd per warp
const void* triangle_no_atomics_handle();  // counted, never added (ablation)

// Word count in a per-block shared hash table (linear probing, CAS on the key), merged into
// global counts per word id at the end of the block.
inline constexpr std::uint32_t kWordSlots = 2048;  // shared slots per block (keys < kWordSlots / 2)
inline constexpr std::uint32_t kNoWord = 0xFFFFFFFFu;
struct WordCountArgs {
  const std::uint32_t* words;  // word ids < vocabulary
  unsigned long long n;
  std::uint32_t* counts;       // vocabulary words, 0 before a run
  std::uint32_t vocabulary;
  std::uint32_t* sink;
};
const void* word_count_shared_cas_handle();  // every token inserts itself
const void* word_count_warp_merged_handle(); // equal words of a warp merged first (__match_any_sync)
const void* word_count_no_atomics_handle();  // the same reads and hash, no atomic (ablation)

// Statistics per group under a spin lock per group (held_out_locks_and_cas.cu).
struct GroupStats {
  std::uint32_t sum, count, min, max;
};
struct GroupStatsArgs {
  const std::uint32_t* groups;
  const std::uint32_t* values;
  unsigned long long n;
  GroupStats* stats;      // min = 0xFFFFFFFF, the rest 0 before a run
  int* locks;             // one per group, 0 before a run
};
const void* group_stats_locked_handle();     // acquire the group's lock, update the four fields, release
const void* group_stats_lock_free_handle();  // atomicAdd, atomicAdd, atomicMin, atomicMax
const void* group_stats_unlocked_handle();   // the same updates without lock or atomics (ablation; racy)

// Segmented float max through a CAS loop: out[segment[i]] = max(out, value[i]); values >= 0,
// segments sorted (runs of equal ids).
struct SegmentMaxArgs {
  const std::uint32_t* segments;
  const float* values;
  unsigned long long n;
  std::uint32_t* out;     // float bits, 0 (0.0f) before a run
  std::uint32_t* sink;
};
const void* segment_max_cas_handle();         // the CAS loop: CAS max(value, current) until it holds
const void* segment_max_native_handle();      // atomicMax on the bit pattern (non-negative floats)
const void* segment_max_no_atomics_handle();  // the same reads, no atomic (ablation)

// Argmax per bucket through a 64-bit CAS loop on a packed (ordered value, inverted index) key.
struct ArgmaxArgs {
  const std::uint32_t* buckets;
  const float* values;
  unsigned long long n;
  unsigned long long* out;  // 0 before a run
  std::uint32_t* sink;
};
const void* argmax_cas_handle();             // the CAS loop: CAS max(key, current) until it holds
const void* argmax_load_then_cas_handle();   // read first, CAS only while the key is larger
const void* argmax_no_atomics_handle();      // the same reads and keys, no atomic (ablation)

}  // namespace atomq::validation::kernels
