#include "schema_check.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace atomq::schema {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A "$ref" to another file names it relative to the referring schema: "common.schema.json"
// or "common.schema.json#/definitions/x" (valijson passes the part before '#').
const json* fetch_sibling(const fs::path& folder, const std::string& uri) {
  const std::string name = fs::path(uri).filename().string();
  return new json(load_json_file((folder / name).string()));
}

// "~" and "/" inside a key are escaped as "~0" and "~1" (RFC 6901).
std::string escape_token(const std::string& token) {
  std::string out;
  for (char ch : token) out += ch == '~' ? "~0" : ch == '/' ? "~1" : std::string(1, ch);
  return out;
}

bool strictly_below(const std::string& deeper, const std::string& pointer) {
  return deeper.size() > pointer.size() && deeper.compare(0, pointer.size(), pointer) == 0 &&
         deeper[pointer.size()] == '/';
}

}  // namespace

struct SchemaChecker::Impl {
  valijson::Schema schema;
};

SchemaChecker::SchemaChecker(const std::string& schema_path) : impl_(std::make_unique<Impl>()) {
  const json document = load_json_file(schema_path);
  const fs::path folder = fs::path(schema_path).parent_path();
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  valijson::adapters::NlohmannJsonAdapter adapter(document);
  try {
    parser.populateSchema(
        adapter, impl_->schema, [folder](const std::string& uri) { return fetch_sibling(folder, uri); },
        [](const json* fetched) { delete fetched; });
  } catch (const std::exception& e) {
    throw std::runtime_error(schema_path + ": not a usable schema: " + e.what());
  }
}

SchemaChecker::~SchemaChecker() = default;
SchemaChecker::SchemaChecker(SchemaChecker&&) noexcept = default;
SchemaChecker& SchemaChecker::operator=(SchemaChecker&&) noexcept = default;

std::vector<Violation> SchemaChecker::check(const json& document) const {
  valijson::Validator validator(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(document);
  if (validator.validate(impl_->schema, adapter, &results)) return {};
  std::vector<Violation> all;
  for (const auto& error : results) all.push_back({json_pointer(error.context), error.description});
  // valijson also reports every enclosing object and "$ref"; keep the deepest failures.
  std::vector<Violation> innermost;
  for (const Violation& v : all)
    if (std::none_of(all.begin(), all.end(), [&](const Violation& o) { return strictly_below(o.pointer, v.pointer); }))
      innermost.push_back(v);
  return innermost;
}

json load_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return json::parse(text.str());
  } catch (const json::parse_error& e) {
    throw std::runtime_error(path + ": not valid JSON: " + e.what());
  }
}

std::string json_pointer(const std::vector<std::string>& context) {
  std::string out;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    const bool bracketed = part.size() >= 2 && part.front() == '[' && part.back() == ']';
    out += "/" + escape_token(bracketed ? part.substr(1, part.size() - 2) : part);
  }
  return out;
}

}  // namespace atomq::schema
