#include "atomq/analyzer/nvtx_filter.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <stdexcept>

namespace atomq::analyzer {

namespace {

constexpr const char* kRegexPrefix = "regex:";

std::invalid_argument bad(const std::string& spec, const std::string& why) {
  return std::invalid_argument("NVTX range \"" + spec + "\": " + why);
}

}  // namespace

NvtxRangePattern::NvtxRangePattern(const std::string& spec) : spec_(spec) {
  std::string path = spec;
  const bool regex = path.rfind(kRegexPrefix, 0) == 0;
  if (regex) path = path.substr(std::char_traits<char>::length(kRegexPrefix));
  if (path.empty() || path.back() != '/')
    throw bad(spec, "end it with \"/\" (push/pop ranges: \"A/\", \"A/B/\"; start/end ranges are not supported)");
  if (!regex && path.find('@') != std::string::npos)
    throw bad(spec, "NVTX domains (\"Domain@...\") are not supported: ranges of the default domain only");
  size_t start = 0;
  for (size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', start)) {
    names_.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  for (const std::string& n : names_) {
    if (n.empty()) throw bad(spec, "an empty range name (\"//\")");
    if (!regex) continue;
    auto re = std::make_shared<const re2::RE2>(n, re2::RE2::Quiet);
    if (!re->ok()) throw bad(spec, "invalid regex \"" + n + "\": " + re->error());
    regexes_.push_back(std::move(re));
  }
}

bool NvtxRangePattern::element_matches(size_t i, const std::string& name) const {
  if (!regexes_.empty()) return re2::RE2::PartialMatch(name, *regexes_[i]);
  return names_[i] == "*" || names_[i] == name;
}

bool NvtxRangePattern::matches(const std::vector<std::string>& open) const {
  if (open.size() < names_.size()) return false;
  // The pattern's ranges, each directly inside the one before, anywhere in the open ranges.
  for (size_t first = 0; first + names_.size() <= open.size(); ++first) {
    bool all = true;
    for (size_t i = 0; i < names_.size() && all; ++i) all = element_matches(i, open[first + i]);
    if (all) return true;
  }
  return false;
}

NvtxFilter::NvtxFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude) {
  for (const std::string& s : include) include_.emplace_back(s);
  for (const std::string& s : exclude) exclude_.emplace_back(s);
}

bool NvtxFilter::selects(const std::vector<std::string>& open) const {
  const auto match = [&open](const NvtxRangePattern& p) { return p.matches(open); };
  if (!include_.empty() && std::none_of(include_.begin(), include_.end(), match)) return false;
  return std::none_of(exclude_.begin(), exclude_.end(), match);
}

}  // namespace atomq::analyzer
