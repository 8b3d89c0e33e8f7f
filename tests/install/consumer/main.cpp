// consumer [RUN.json]: evaluates a recorded run's profiles with the installed bundled table.
#include <cstdio>
#include <string>

#include "atomq/calibration/service_table.hpp"
#include "atomq/common/enum_names.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/model/service_time.hpp"
#include "atomq/run_document/run_document.hpp"

int main(int argc, char** argv) {
  const std::string data = CONSUMER_DATA_DIR;
  const std::string run_path = argc > 1 ? argv[1] : data + "/recorded/multi_kernel_app.json";
  try {
    const atomq::run::RunDocument run = atomq::run::load_run_document(run_path);
    const std::string chip = run.profiles.at(0).device.chip;
    const auto table = atomq::model::bundled_table_path(data + "/tables", chip);
    if (!table) throw std::runtime_error("no bundled table for " + chip + " in " + data);
    const atomq::model::ServiceTimeModel model(atomq::calibration::load_service_table(*table));
    for (const auto& profile : run.profiles) {
      const auto analysis = atomq::model::analyze(profile, model);
      std::printf("%s\t%s\n", profile.kernel_name.c_str(), atomq::enum_name(analysis.utilization_class).c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
