// Validation of atomq's JSON documents against the schemas in docs/schemas/ (JSON Schema
// draft-07, valijson). Test-side only: the product libraries never depend on valijson.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace atomq::schema {

// One failed constraint: where in the document (a JSON pointer, "" for the root) and why.
struct Violation {
  std::string pointer;
  std::string what;
};

// A schema file; its "$ref"s to other files resolve in the same folder.
class SchemaChecker {
 public:
  // Throws std::runtime_error when the file cannot be read or is not a valid schema.
  explicit SchemaChecker(const std::string& schema_path);
  ~SchemaChecker();
  SchemaChecker(SchemaChecker&&) noexcept;
  SchemaChecker& operator=(SchemaChecker&&) noexcept;

  // Empty when the document conforms. Only the innermost failures are listed.
  std::vector<Violation> check(const nlohmann::json& document) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A JSON file; throws std::runtime_error naming it when it cannot be read or parsed.
nlohmann::json load_json_file(const std::string& path);

// valijson's error context (["<root>", "[kernels]", "[0]"]) as a JSON pointer ("/kernels/0").
std::string json_pointer(const std::vector<std::string>& context);

}  // namespace atomq::schema
