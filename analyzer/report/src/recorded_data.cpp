#include <nlohmann/json.hpp>

#include "atomq/common/atomic_file.hpp"
#include "atomq/common/data_dir.hpp"
#include "atomq/common/json_fields.hpp"
#include "atomq/report/recorded.hpp"
#include "atomq/run_document/run_document.hpp"

namespace atomq::report {

using nlohmann::json;

std::string default_recorded_dir() { return data_path("recorded"); }

RecordedSet load_recorded_set(const std::string& dir) {
  const std::string path = dir + "/manifest.json";
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const std::runtime_error& e) {
    throw run::RunDocumentError(std::string(e.what()) +
                                " (the recorded runs are installed in share/atomq/recorded/)");
  }
  const JsonFields<run::RunDocumentError> r(path);
  const json doc = r.parse_object(text);
  RecordedSet set;
  set.dir = dir;
  set.provenance = r.str(doc, "", "provenance");
  set.table_chip = r.str(doc, "", "table_chip");
  const json& runs = r.array(doc, "", "runs");
  for (size_t i = 0; i < runs.size(); ++i)
    set.run_paths.push_back(dir + "/" + r.str(runs[i], json_path("runs", i)));
  return set;
}

}  // namespace atomq::report
