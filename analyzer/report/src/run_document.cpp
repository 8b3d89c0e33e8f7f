#include "atomq/report/run_document.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atomq/analyzer/analysis_run.hpp"

namespace atomq::report {

using nlohmann::json;

namespace {

// The run document's one definition (a header of model types only; no CUPTI behind it).
constexpr const char* kRunFormat = analyzer::kAnalysisRunFormat;
constexpr int kRunVersion = analyzer::kAnalysisRunVersion;

std::string label_from_path(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  const std::string ext = ".json";
  if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
    name.resize(name.size() - ext.size());
  return name;
}

std::string optional_string(const json& doc, const char* field, const std::string& where) {
  if (!doc.contains(field) || doc[field].is_null()) return "";
  if (!doc[field].is_string()) throw RunDocumentError(where + ": field \"" + field + "\" is not a string");
  return doc[field].get<std::string>();
}

}  // namespace

RunDocument parse_run_document(const std::string& json_text, const std::string& source_name) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw RunDocumentError(source_name + ": not valid JSON (" + e.what() + ")");
  }
  if (!doc.is_object()) throw RunDocumentError(source_name + ": not a JSON object");
  if (!doc.contains("format") || !doc["format"].is_string())
    throw RunDocumentError(source_name + ": field \"format\" missing: not an atomq run document "
                                         "(write one with `atomq analyze` or `atomq hist --analyze`)");
  if (doc["format"] != kRunFormat)
    throw RunDocumentError(source_name + ": field \"format\" is \"" + doc["format"].get<std::string>() +
                           "\", expected \"" + kRunFormat + "\"");
  if (!doc.contains("version") || !doc["version"].is_number_integer())
    throw RunDocumentError(source_name + ": field \"version\" missing or not an integer");
  if (doc["version"].get<int>() != kRunVersion)
    throw RunDocumentError(source_name + ": field \"version\" is " + doc["version"].dump() + ", this atomq reads version " +
                           std::to_string(kRunVersion));
  if (!doc.contains("kernels") || !doc["kernels"].is_array())
    throw RunDocumentError(source_name + ": field \"kernels\" missing or not an array");

  RunDocument run;
  run.path = source_name;
  run.label = label_from_path(source_name);
  run.command = optional_string(doc, "command", source_name);
  run.source = optional_string(doc, "source", source_name);
  run.atomq_version = optional_string(doc, "atomq_version", source_name);
  run.atomq_commit = optional_string(doc, "atomq_commit", source_name);
  if (doc.contains("table") && doc["table"].is_object()) {
    run.table_path = optional_string(doc["table"], "path", source_name + ": table");
    run.table_chip = optional_string(doc["table"], "chip", source_name + ": table");
  }
  if (doc.contains("warnings") && doc["warnings"].is_array())
    for (const auto& w : doc["warnings"])
      if (w.is_string()) run.warnings.push_back(w.get<std::string>());

  const json& kernels = doc["kernels"];
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string where = source_name + ": kernels[" + std::to_string(i) + "]";
    if (!kernels[i].is_object() || !kernels[i].contains("profile"))
      throw RunDocumentError(where + ": field \"profile\" missing");
    try {
      run.profiles.push_back(model::parse_kernel_profile(kernels[i]["profile"].dump(), where + ".profile"));
    } catch (const model::ProfileError& e) {
      throw RunDocumentError(e.what());
    }
  }
  return run;
}

RunDocument load_run_document(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RunDocumentError(path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  return parse_run_document(text.str(), path);
}

}  // namespace atomq::report
