// The bundled table a recorded profile is evaluated with: its GPU model's, else its chip's
// (model::bundled_table_for), loaded once per table for the tests that re-evaluate recordings.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/model/kernel_profile.hpp"
#include "atomq/model/service_time.hpp"

namespace atomq::test {

inline const model::ServiceTimeModel& bundled_model_for(const model::KernelProfile& p) {
  static std::map<std::string, model::ServiceTimeModel> loaded;
  const auto path = model::bundled_table_for(ATOMQ_BUNDLED_TABLE_DIR, p.device.chip, p.device.name);
  if (!path) throw std::runtime_error("no bundled table for chip " + p.device.chip);
  auto it = loaded.find(*path);
  if (it == loaded.end())
    it = loaded.emplace(*path, model::ServiceTimeModel(calibration::load_service_table(*path))).first;
  return it->second;
}

}  // namespace atomq::test
