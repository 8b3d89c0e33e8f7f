// The ncu CSV import: parse -> analyze each profile with the fixed table -> write each profile
// and the run document `analyze --ncu-csv` writes -> read them again (what report reads).
#include "atomq/analyzer/ncu_csv.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/run_document/run_document.hpp"
#include "fuzz_support.hpp"

using namespace atomq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<model::KernelProfile> profiles;
  try {
    profiles = analyzer::parse_ncu_csv(fuzz::text_of(data, size), "fuzz.csv");
  } catch (const analyzer::NcuCsvError&) {
    return 0;
  }
  std::vector<model::KernelAnalysis> analyses;
  for (const model::KernelProfile& profile : profiles) {
    analyses.push_back(model::analyze(profile, fuzz::fixed_model()));
    fuzz::check_analysis_written(analyses.back());
    fuzz::check_profile_round_trip(profile);
  }
  run::RunInfo info;
  info.command = "fuzz.csv";
  info.source = "ncu_csv";
  const std::string text = json_text(run::run_document_json(info, profiles, analyses), 1);
  try {
    (void)run::parse_run_document(text, "written.json");
  } catch (const run::RunDocumentError& e) {
    fuzz::round_trip_failure(std::string("report would refuse what analyze --ncu-csv writes: ") + e.what(), text);
  }
  return 0;
}
