// The service table reader: parse -> build the model and analyze the fixed profiles with it
// -> write -> read again; the second text must equal the first.
#include "atomq/calibration/service_table.hpp"
#include "atomq/model/analysis.hpp"
#include "fuzz_support.hpp"

using namespace atomq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  calibration::ServiceTable table;
  try {
    table = calibration::parse_service_table(fuzz::text_of(data, size), "fuzz input");
  } catch (const calibration::TableError&) {
    return 0;
  }
  const model::ServiceTimeModel service(table);
  for (const model::KernelProfile& profile : fuzz::fixed_profiles())
    fuzz::check_analysis_written(model::analyze(profile, service));
  const std::string text = calibration::serialize_service_table(table);
  calibration::ServiceTable back;
  try {
    back = calibration::parse_service_table(text, "written table");
  } catch (const calibration::TableError& e) {
    fuzz::round_trip_failure(std::string("the table reader refuses the writer's text: ") + e.what(), text);
  }
  if (calibration::serialize_service_table(back) != text)
    fuzz::round_trip_failure("the table read back is written differently", text);
  return 0;
}
