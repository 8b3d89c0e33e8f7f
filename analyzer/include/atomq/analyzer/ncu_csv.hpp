// Import of an `ncu --csv --print-units base --metrics <atomq metrics> ...` export into
// KernelProfile records, for offline analysis on a machine without a GPU.
//
// The export is read as a stream, one record at a time, in time linear in its size; of each
// launch only the counters the model reads are kept (atomq_metrics() and the launch statistics),
// and at most NcuCsvLimits' launches. Every refusal names the file, the line and the field.
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/model/kernel_profile.hpp"

namespace atomq::analyzer {

class NcuCsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the import holds at most; beyond any of them the export is refused, naming the limit.
struct NcuCsvLimits {
  size_t max_record_bytes = size_t{4} << 20;  // one CSV record (a row, or a line before the header)
  // Launches returned: analyze's run document (about 8 KB a launch) stays far within the 256 MiB
  // its readers read, and analyze within 1 GiB of memory (docs/reliability.md, "A large export").
  size_t max_launches_kept = 10000;
  size_t max_launches_seen = 1000000;         // launches in the export (their IDs are remembered)
  size_t max_kept_text_bytes = size_t{32} << 20;  // kernel names and IDs of the launches kept
};

// Called with each launch's profile at its first row (kernel, launch and device filled, no
// counters yet), in file order; false drops the launch (its rows are still checked).
using NcuLaunchSelector = std::function<bool(const model::KernelProfile&)>;

struct NcuCsvImport {
  std::vector<model::KernelProfile> profiles;  // the launches kept, in file order
  long long launches_seen = 0;                 // all launches of the export
};

// Reads an export from a stream. Throws NcuCsvError naming the source, the line and the field.
NcuCsvImport read_ncu_csv(std::istream& in, const std::string& source_name, const NcuLaunchSelector& keep = {},
                          const NcuCsvLimits& limits = {});
NcuCsvImport read_ncu_csv_file(const std::string& path, const NcuLaunchSelector& keep = {},
                               const NcuCsvLimits& limits = {});

// One profile per ncu result ID, in file order (every launch kept).
std::vector<model::KernelProfile> parse_ncu_csv(const std::string& text, const std::string& source_name);
std::vector<model::KernelProfile> load_ncu_csv(const std::string& path);

// Splits one CSV record (RFC 4180 quoting) in one pass; exposed for tests.
std::vector<std::string> split_csv_record(const std::string& line, bool* ok);

}  // namespace atomq::analyzer
