// Import of an `ncu --csv --print-units base --metrics <atomq metrics> ...` export into
// KernelProfile records, for offline analysis on a machine without a GPU.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "atomq/model/kernel_profile.hpp"

namespace atomq::analyzer {

class NcuCsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One profile per ncu result ID, in file order. Throws NcuCsvError naming the line.
std::vector<model::KernelProfile> parse_ncu_csv(const std::string& text, const std::string& source_name);
std::vector<model::KernelProfile> load_ncu_csv(const std::string& path);

// Splits one CSV record (RFC 4180 quoting); exposed for tests.
std::vector<std::string> split_csv_record(const std::string& line, bool* ok);

}  // namespace atomq::analyzer
