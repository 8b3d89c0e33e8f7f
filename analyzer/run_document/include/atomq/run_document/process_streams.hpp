// Programs of several processes (a launcher and its workers): every process the injection
// reaches writes a profile stream of its own, and `atomq analyze` merges them. The program
// atomq started writes the stream atomq named; any other process writes beside it, named by
// the rank its launcher gave it, else by its pid:
//   out.json.profiles.jsonl -> out.json.profiles.rank1.jsonl, out.json.profiles.pid4242.jsonl
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "atomq/model/kernel_profile.hpp"

namespace atomq::run {

// The launchers' rank variables, the most global first.
inline constexpr const char* kRankVariables[] = {"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "LOCAL_RANK"};

// This process: its pid, and its rank from the first rank variable that holds a whole number.
model::ProcessTag this_process(const std::function<const char*(const char*)>& lookup);

// The stream `process` writes. `root`: the program atomq started (it writes `base` itself).
std::string process_stream_path(const std::string& base, const model::ProcessTag& process, bool root);

// process_stream_path, created for this process alone: when another process already holds
// that rank's name (a worker's own child inherits its rank), the pid is added to it.
std::string claim_process_stream(const std::string& base, const model::ProcessTag& process, bool root);

// The streams other processes left beside `base`, by name (rank order, then pid order).
std::vector<std::string> sibling_streams(const std::string& base);

// Removes the streams a previous run left beside `base`.
void remove_sibling_streams(const std::string& base);

}  // namespace atomq::run
