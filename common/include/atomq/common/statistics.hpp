// Order statistics of repeated measurements (linear interpolation between order statistics).
#pragma once

#include <vector>

namespace atomq {

// q in [0, 1]; throws std::invalid_argument on an empty sample.
double quantile(std::vector<double> v, double q);
double median(std::vector<double> v);

struct SampleSummary {
  double median = 0;
  double min = 0;
  double max = 0;
};
// Median, smallest and largest value; throws std::invalid_argument on an empty sample.
SampleSummary summarize(const std::vector<double>& v);

}  // namespace atomq
