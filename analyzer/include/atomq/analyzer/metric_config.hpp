// Host side of the CUPTI range profiler: validates the metric list against a chip, builds
// the config image (all metrics in one call, so the pass count is minimal) and evaluates
// decoded counter data. Works without a GPU when given the chip name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace atomq::analyzer {

struct MetricValidation {
  std::string name;
  bool valid = false;
};

class MetricConfig {
 public:
  // counter_availability may be empty (host-only use, e.g. no GPU here).
  MetricConfig(const std::string& chip, std::vector<std::string> metrics,
               const std::vector<uint8_t>& counter_availability = {});
  ~MetricConfig();
  MetricConfig(const MetricConfig&) = delete;
  MetricConfig& operator=(const MetricConfig&) = delete;

  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::vector<uint8_t>& config_image() const { return config_image_; }
  size_t passes() const { return passes_; }

  // Values of all metrics, in order, for one decoded range.
  std::vector<double> evaluate(const std::vector<uint8_t>& counter_data, size_t range_index) const;

 private:
  struct Host;
  std::string chip_;
  std::vector<std::string> metrics_;
  std::vector<uint8_t> config_image_;
  size_t passes_ = 0;
  std::unique_ptr<Host> host_;
};

// The names as the C string array CUPTI's parameter structs take (valid while `names` lives).
std::vector<const char*> c_strings(const std::vector<std::string>& names);

// Checks every name on the chip; never throws for an invalid name (reports it).
// The chip names CUPTI's host API knows (e.g. "GH100"), as it spells them.
std::vector<std::string> supported_chips();

std::vector<MetricValidation> validate_metrics(const std::string& chip,
                                               const std::vector<std::string>& metrics);

}  // namespace atomq::analyzer
