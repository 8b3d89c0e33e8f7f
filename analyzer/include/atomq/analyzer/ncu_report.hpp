// Reading an Nsight Compute report (.ncu-rep) through ncu itself: `ncu --import REPORT --csv
// --page raw --print-units base` prints its raw page (every metric collected, one row per launch),
// which the CSV import reads (ncu_csv.hpp). No CUDA library is needed, only ncu.
#pragma once

#include <optional>
#include <string>

namespace atomq::analyzer {

// ncu: $ATOMQ_NCU, else the first on PATH, else /usr/local/cuda/bin/ncu; nullopt when none is.
std::optional<std::string> find_ncu();

// Writes the raw page of `report` to `csv_path` (replaced). Throws NcuCsvError naming the report
// and why: no ncu, or ncu's own message and exit status.
void export_ncu_report(const std::string& report, const std::string& csv_path);

}  // namespace atomq::analyzer
