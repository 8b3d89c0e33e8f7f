// atomq_schema_check [--pointer P] SCHEMA FILE...: validates each FILE (or the part of it at
// the JSON pointer P) against SCHEMA (docs/schemas/). One line per invalid file, naming the
// file, the JSON pointer of the first innermost failure and why. Exit 0: all conform; 1: some
// do not; 2: bad usage, or a file or the schema could not be read.
#include <cstdio>
#include <string>
#include <vector>

#include "schema_check.hpp"

namespace {

int usage() {
  std::fprintf(stderr, "usage: atomq_schema_check [--pointer JSON_POINTER] SCHEMA FILE...\n");
  return 2;
}

// Prints the file's line when it does not conform; false then.
bool conforms(const atomq::schema::SchemaChecker& checker, const std::string& file,
              const std::string& pointer) {
  const nlohmann::json whole = atomq::schema::load_json_file(file);
  const nlohmann::json::json_pointer part(pointer);
  if (!whole.contains(part)) {
    std::printf("%s: %s: missing\n", file.c_str(), pointer.c_str());
    return false;
  }
  const auto violations = checker.check(whole.at(part));
  if (violations.empty()) return true;
  const auto& first = violations.front();
  const std::string at = pointer + first.pointer;
  std::printf("%s: %s: %s", file.c_str(), at.empty() ? "(root)" : at.c_str(), first.what.c_str());
  if (violations.size() > 1) std::printf(" (and %zu more)", violations.size() - 1);
  std::printf("\n");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string pointer;
  if (args.size() >= 2 && args[0] == "--pointer") {
    pointer = args[1];
    args.erase(args.begin(), args.begin() + 2);
  }
  if (args.size() < 2) return usage();
  try {
    const atomq::schema::SchemaChecker checker(args[0]);
    size_t invalid = 0;
    for (size_t i = 1; i < args.size(); ++i)
      if (!conforms(checker, args[i], pointer)) ++invalid;
    std::fprintf(stderr, "atomq_schema_check: %zu of %zu file(s) conform to %s\n",
                 args.size() - 1 - invalid, args.size() - 1, args[0].c_str());
    return invalid == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "atomq_schema_check: %s\n", e.what());
    return 2;
  }
}
