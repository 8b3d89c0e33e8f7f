#include <filesystem>
#include <limits>

#include "atomq/common/json_fields.hpp"
#include "atomq/run_document/run_document.hpp"
#include "atomq/version.hpp"

namespace atomq::run {

namespace {

using nlohmann::json;
using Fields = JsonFields<RunDocumentError>;

std::string label_from_path(const std::string& path) {
  const std::filesystem::path p(path);
  return p.extension() == ".json" ? p.stem().string() : p.filename().string();
}

SessionStats read_launches(const Fields& r, const json& doc) {
  SessionStats s;
  const json* launches = r.optional_member(doc, "", "launches");
  if (launches == nullptr) return s;
  auto count = [&](const char* key) {
    const json* v = r.optional_member(*launches, "launches", key);
    return v ? r.integer(*v, json_path("launches", key), 0) : 0;
  };
  s.launches_seen = count("seen");
  s.launches_profiled = count("profiled");
  s.launches_filtered = count("filtered");
  s.graph_launches = count("in_graphs_not_profiled");
  s.graph_launches_profiled = count("graph_launches_profiled");
  s.graph_nodes_not_profiled = count("graph_kernel_nodes_not_profiled");
  s.captured_launches = count("captured_into_graphs");
  s.failed = count("failed");
  if (const json* passes = r.optional_member(doc, "", "replay_passes"))
    s.passes = static_cast<size_t>(r.integer(*passes, "replay_passes", 0));
  return s;
}

RunInfo read_info(const Fields& r, const json& doc) {
  RunInfo info;
  info.command = r.optional_str(doc, "", "command");
  info.source = r.optional_str(doc, "", "source");
  info.atomq_version = r.optional_str(doc, "", "atomq_version");
  info.atomq_commit = r.optional_str(doc, "", "atomq_commit");
  if (const json* table = r.optional_member(doc, "", "table")) {
    info.table_path = r.optional_str(*table, "table", "path");
    info.table_chip = r.optional_str(*table, "table", "chip");
    info.table_digest = r.optional_str(*table, "table", "digest");
  }
  if (const json* warnings = r.optional_member(doc, "", "warnings")) {
    r.array(*warnings, "warnings", EmptyArray::kAllowed);
    for (size_t i = 0; i < warnings->size(); ++i)
      info.warnings.push_back(r.str((*warnings)[i], json_path("warnings", i)));
  }
  if (const json* code = r.optional_member(doc, "", "program_exit_code"))
    info.program_exit_code = static_cast<int>(
        r.integer(*code, "program_exit_code", std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  info.launches = read_launches(r, doc);
  return info;
}

}  // namespace

RunDocument parse_run_document(const std::string& json_text, const std::string& source_name) {
  const Fields r(source_name);
  const json doc = r.parse_object(json_text);
  if (!doc.contains("format"))
    r.fail("format", "missing: not an atomq run document (write one with `atomq analyze` or "
                     "`atomq hist --analyze`)");
  r.require_format(doc, kRunDocumentFormat, kRunDocumentVersion);
  RunDocument run;
  run.path = source_name;
  run.label = label_from_path(source_name);
  run.info = read_info(r, doc);
  const json& kernels = r.array(doc, "", "kernels", EmptyArray::kAllowed);
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string field = json_path("kernels", i);
    const json& profile = r.member(kernels[i], field, "profile");
    const json* analysis = r.optional_member(kernels[i], field, "analysis");
    run.stored_analyses.push_back(analysis ? *analysis : json(nullptr));
    try {
      run.profiles.push_back(model::kernel_profile_from_json(profile, source_name + ": " + field + ".profile"));
    } catch (const model::ProfileError& e) {
      throw RunDocumentError(e.what());
    }
  }
  return run;
}

std::string stored_analyses_unusable(const RunInfo& info, const std::string& table_digest,
                                     const std::string& build_version, const std::string& build_commit) {
  const bool clean = !build_commit.empty() && build_commit != "unknown" &&
                     build_commit.find("-dirty") == std::string::npos;
  if (info.atomq_commit.empty()) return "the document does not say which build wrote it";
  if (info.atomq_version != build_version || info.atomq_commit != build_commit)
    return "written by atomq " + info.atomq_version + " " + info.atomq_commit + ", this is " + build_version + " " +
           build_commit;
  if (!clean) return "written by a build of a modified tree (" + build_commit + "): its model is not named by the commit";
  if (info.table_digest.empty()) return "the document does not name one table for all its analyses";
  // By file name: a report carries no path of the machine that wrote the run.
  if (info.table_digest != table_digest)
    return "its analyses used another table (" + std::filesystem::path(info.table_path).filename().string() +
           ", digest " + info.table_digest + ")";
  return "";
}

std::string stored_analyses_unusable(const RunInfo& info, const std::string& table_digest) {
  return stored_analyses_unusable(info, table_digest, kVersion, kGitCommit);
}

RunDocument load_run_document(const std::string& path) {
  return parse_run_document(Fields::read_file(path), path);
}

}  // namespace atomq::run
