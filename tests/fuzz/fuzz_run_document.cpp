// The run document reader: parse -> analyze every profile with the fixed table -> write the
// document with its analyses -> read again; what is read back must be what was written, and
// each analysis read back (model::analysis_from_json) must write the same JSON again.
#include "atomq/common/json_fields.hpp"
#include "atomq/model/analysis.hpp"
#include "atomq/run_document/run_document.hpp"
#include "atomq/model/analysis_json.hpp"
#include "fuzz_support.hpp"

using namespace atomq;

namespace {

// The document without analyses (the reader does not read them back).
nlohmann::json document_of(const run::RunDocument& run) { return run::run_document_json(run.info, run.profiles, {}); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  run::RunDocument run;
  try {
    run = run::parse_run_document(fuzz::text_of(data, size), "fuzz.json");
  } catch (const run::RunDocumentError&) {
    return 0;
  }
  std::vector<model::KernelAnalysis> analyses;
  for (const model::KernelProfile& profile : run.profiles) {
    analyses.push_back(model::analyze(profile, fuzz::fixed_model()));
    fuzz::check_analysis_written(analyses.back());
    const std::string written = json_text(model::analysis_json(analyses.back()));
    try {
      if (json_text(model::analysis_json(model::analysis_from_json(model::analysis_json(analyses.back()), "fuzz"))) !=
          written)
        fuzz::round_trip_failure("the analysis read back writes other JSON", written);
    } catch (const model::AnalysisJsonError& e) {
      fuzz::round_trip_failure(std::string("the analysis reader refuses the writer's JSON: ") + e.what(), written);
    }
  }
  const std::string text = json_text(run::run_document_json(run.info, run.profiles, analyses), 1);
  run::RunDocument back;
  try {
    back = run::parse_run_document(text, "written.json");
  } catch (const run::RunDocumentError& e) {
    fuzz::round_trip_failure(std::string("the run document reader refuses the writer's text: ") + e.what(), text);
  }
  if (document_of(back) != document_of(run))
    fuzz::round_trip_failure("the run document read back differs from the one written", text);
  return 0;
}
