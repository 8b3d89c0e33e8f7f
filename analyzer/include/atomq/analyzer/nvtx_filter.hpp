// Which launches NVTX ranges select, with ncu's --nvtx-include / --nvtx-exclude syntax for
// push/pop ranges of the default domain: "A/" is range A, "A/B/" range B opened directly inside
// A; "*" stands for any one range; "regex:A/B/" reads each name as an RE2 expression searched in
// the range's name (PyTorch's op ranges carry a sequence number: "regex:aten::histc/").
// Host-only: the injected collector and the tests use it.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace re2 {
class RE2;
}

namespace atomq::analyzer {

class NvtxRangePattern {
 public:
  // Throws std::invalid_argument naming the spec: not ending in "/" (start/end ranges), a domain
  // ("D@..."), an empty name or an invalid regex.
  explicit NvtxRangePattern(const std::string& spec);
  // `open`: the ranges open on the launching thread, outermost first.
  bool matches(const std::vector<std::string>& open) const;
  const std::string& spec() const { return spec_; }

 private:
  bool element_matches(size_t i, const std::string& name) const;
  std::string spec_;
  std::vector<std::string> names_;
  std::vector<std::shared_ptr<const re2::RE2>> regexes_;  // empty unless "regex:"
};

class NvtxFilter {
 public:
  NvtxFilter() = default;
  NvtxFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude);
  // No include pattern, or one matches; and no exclude pattern matches.
  bool selects(const std::vector<std::string>& open) const;
  bool empty() const { return include_.empty() && exclude_.empty(); }

 private:
  std::vector<NvtxRangePattern> include_, exclude_;
};

}  // namespace atomq::analyzer
