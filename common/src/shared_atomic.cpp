#include "atomq/common/shared_atomic.hpp"

#include <algorithm>
#include <cctype>

namespace atomq {

std::string to_string(const Pattern& p) {
  if (p.conflict_degree == 0) return "same";
  if (p.conflict_degree == 1) return "distinct";
  return "conflict" + std::to_string(p.conflict_degree);
}

bool valid_pattern(const Pattern& p) {
  const int k = p.conflict_degree;
  return k == 0 || k == 1 || (k >= 2 && k <= 32 && (32 % k) == 0);
}

std::optional<Pattern> pattern_from_string(const std::string& s) {
  if (s == "same") return kSameAddress;
  if (s == "distinct") return kDistinct;
  const std::string prefix = "conflict";
  if (s.rfind(prefix, 0) == 0 && s.size() > prefix.size() && s.size() <= prefix.size() + 2) {
    const std::string digits = s.substr(prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](unsigned char ch) { return std::isdigit(ch); }))
      return std::nullopt;
    const Pattern p{std::stoi(digits)};
    if (p.conflict_degree >= 2 && valid_pattern(p)) return p;
  }
  return std::nullopt;
}

}  // namespace atomq
