// Terminal output helpers of the CLI: progress bar with ETA and the table summary.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "atomq/calibration/calibrator.hpp"
#include "atomq/calibration/service_table.hpp"

namespace atomq::cli {

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);
  void update(const calibration::CalibrationProgress& p);
  void finish();

 private:
  bool enabled_;
  bool tty_;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_;
};

void print_table_summary(std::FILE* out, const calibration::ServiceTable& table);

}  // namespace atomq::cli
