#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atomq/report/recorded.hpp"
#include "atomq/report/run_document.hpp"

namespace atomq::report {

using nlohmann::json;

std::string default_recorded_dir() { return ATOMQ_RECORDED_DIR; }

RecordedSet load_recorded_set(const std::string& dir) {
  const std::string path = dir + "/manifest.json";
  std::ifstream in(path);
  if (!in) throw RunDocumentError(path + ": cannot open (the recorded runs are in analyzer/report/recorded/)");
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw RunDocumentError(path + ": not valid JSON (" + e.what() + ")");
  }
  auto string_field = [&](const char* field) {
    if (!doc.contains(field) || !doc[field].is_string())
      throw RunDocumentError(path + ": field \"" + field + "\" missing or not a string");
    return doc[field].get<std::string>();
  };
  RecordedSet set;
  set.dir = dir;
  set.provenance = string_field("provenance");
  set.table_chip = string_field("table_chip");
  if (!doc.contains("runs") || !doc["runs"].is_array() || doc["runs"].empty())
    throw RunDocumentError(path + ": field \"runs\" missing or empty");
  for (const auto& r : doc["runs"]) {
    if (!r.is_string()) throw RunDocumentError(path + ": field \"runs\" holds a non-string");
    set.run_paths.push_back(dir + "/" + r.get<std::string>());
  }
  return set;
}

}  // namespace atomq::report
