// Shared by the schema tests: the schemas by name (docs/schemas/NAME.schema.json), each parsed
// once, and a conformance assertion that prints every violation.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "schema_check.hpp"

namespace atomq::schema::test {

inline std::string schema_path(const std::string& name) {
  return std::string(ATOMQ_SCHEMA_DIR) + "/" + name + ".schema.json";
}

inline const SchemaChecker& checker(const std::string& name) {
  static std::map<std::string, SchemaChecker> parsed;
  auto it = parsed.find(name);
  if (it == parsed.end()) it = parsed.emplace(name, SchemaChecker(schema_path(name))).first;
  return it->second;
}

inline ::testing::AssertionResult conforms(const std::string& schema, const nlohmann::json& doc,
                                           const std::string& what) {
  const std::vector<Violation> violations = checker(schema).check(doc);
  if (violations.empty()) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure() << what << " does not conform to " << schema << ":";
  for (const Violation& v : violations) failure << "\n  " << (v.pointer.empty() ? "(root)" : v.pointer) << ": " << v.what;
  return failure;
}

// The JSON files under `folder` (recursively), sorted.
inline std::vector<std::string> json_files(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
    if (entry.is_regular_file() && entry.path().extension() == ".json") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace atomq::schema::test
