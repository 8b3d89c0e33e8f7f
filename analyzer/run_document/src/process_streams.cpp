#include "atomq/run_document/process_streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <regex>

namespace atomq::run {

namespace {

namespace fs = std::filesystem;

std::optional<int> whole_number(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 0 || value > INT_MAX) return std::nullopt;
  return static_cast<int>(value);
}

// base "DIR/out.profiles.jsonl" -> "out.profiles" (the name the siblings start with).
std::string stem_of(const std::string& base) {
  std::string name = fs::path(base).filename().string();
  const std::string suffix = ".jsonl";
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    name.resize(name.size() - suffix.size());
  return name;
}

struct Sibling {
  std::string path;
  long long rank = -1;  // -1: named by pid only
  long long pid = 0;
};

std::vector<Sibling> list_siblings(const std::string& base) {
  const fs::path dir = fs::path(base).has_parent_path() ? fs::path(base).parent_path() : fs::path(".");
  const std::string stem = stem_of(base);
  static const std::regex tail(R"(\.(?:rank(\d+))?(?:\.?pid(\d+))?\.jsonl)");
  std::vector<Sibling> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= stem.size() || name.compare(0, stem.size(), stem) != 0) continue;
    std::smatch m;
    const std::string rest = name.substr(stem.size());
    if (!std::regex_match(rest, m, tail) || (!m[1].matched && !m[2].matched)) continue;
    Sibling s{entry.path().string()};
    if (m[1].matched) s.rank = std::stoll(m[1].str());
    if (m[2].matched) s.pid = std::stoll(m[2].str());
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const Sibling& a, const Sibling& b) {
    const bool a_ranked = a.rank >= 0, b_ranked = b.rank >= 0;
    if (a_ranked != b_ranked) return a_ranked;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.pid < b.pid;
  });
  return out;
}

}  // namespace

model::ProcessTag this_process(const std::function<const char*(const char*)>& lookup) {
  model::ProcessTag tag;
  tag.pid = static_cast<long long>(getpid());
  for (const char* variable : kRankVariables)
    if (const std::optional<int> rank = whole_number(lookup(variable))) {
      tag.rank = rank;
      tag.rank_variable = variable;
      break;
    }
  return tag;
}

std::string process_stream_path(const std::string& base, const model::ProcessTag& process, bool root) {
  if (root) return base;
  const fs::path dir = fs::path(base).parent_path();
  const std::string stem = stem_of(base);
  const std::string pid = "pid" + std::to_string(process.pid);
  const std::string name =
      process.rank ? stem + ".rank" + std::to_string(*process.rank) + ".jsonl" : stem + "." + pid + ".jsonl";
  return (dir / name).string();
}

std::string claim_process_stream(const std::string& base, const model::ProcessTag& process, bool root) {
  std::string path = process_stream_path(base, process, root);
  if (root) return path;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
      close(fd);
      return path;
    }
    if (errno != EEXIST || !process.rank) break;
    const fs::path p(path);
    path = (p.parent_path() / (stem_of(path) + ".pid" + std::to_string(process.pid) + ".jsonl")).string();
  }
  return path;  // the writer reports what fails on it
}

std::vector<std::string> sibling_streams(const std::string& base) {
  std::vector<std::string> out;
  for (const Sibling& s : list_siblings(base)) out.push_back(s.path);
  return out;
}

void remove_sibling_streams(const std::string& base) {
  for (const Sibling& s : list_siblings(base)) {
    std::error_code ec;
    fs::remove(s.path, ec);
  }
}

}  // namespace atomq::run
