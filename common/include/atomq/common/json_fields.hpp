// The one reader of JSON fields for every atomq document (service table, kernel profile, run
// document, rules). Every error names the source (file, or file and line) and the dotted
// field path, and is thrown as the document's own error type Error (constructed from a
// std::string), so callers catch what they always caught.
#pragma once

#include <cmath>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "atomq/common/atomic_file.hpp"
#include "atomq/common/enum_names.hpp"

namespace atomq {

// "a" + "b" -> "a.b"; "" + "b" -> "b".
inline std::string json_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}
inline std::string json_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

// The library's message without its "[json.exception.parse_error.101] " tag.
inline std::string json_error_text(const nlohmann::json::exception& e) {
  const std::string what = e.what();
  const auto tag_end = what.rfind("] ", what.find(' ') == std::string::npos ? 0 : what.find(' '));
  return what.rfind("[json.exception.", 0) == 0 && tag_end != std::string::npos ? what.substr(tag_end + 2) : what;
}

// Whether text is well-formed UTF-8 (no overlong forms, no surrogates, nothing above
// U+10FFFF): what a JSON document can hold unchanged.
inline bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    const int extra = lead < 0x80 ? 0 : lead >= 0xC2 && lead <= 0xDF ? 1 : lead >= 0xE0 && lead <= 0xEF ? 2
                    : lead >= 0xF0 && lead <= 0xF4 ? 3 : -1;
    if (extra < 0 || text.size() - i <= static_cast<std::size_t>(extra)) return false;
    for (int k = 1; k <= extra; ++k)
      if ((byte(i + k) & 0xC0) != 0x80) return false;
    if (extra >= 2) {
      const unsigned char second = byte(i + 1);
      if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F) ||
          (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second > 0x8F))
        return false;  // overlong, surrogate, or above U+10FFFF
    }
    i += 1 + extra;
  }
  return true;
}

// Every document's text: a string that is not valid UTF-8 (a kernel name read from a foreign
// file) is written with U+FFFD in place of the bad bytes instead of failing the write.
inline std::string json_text(const nlohmann::json& doc, int indent = -1) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Whether an array field may be empty (an enum, so a key string cannot convert to it).
enum class EmptyArray { kRefused, kAllowed };

template <typename Error>
class JsonFields {
 public:
  using json = nlohmann::json;

  explicit JsonFields(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    if (field.empty()) throw Error(source_ + ": " + what);
    throw Error(source_ + ": field '" + field + "': " + what);
  }

  // The whole text of a file; a file that cannot be read fails as this document's error.
  static std::string read_file(const std::string& path) {
    try {
      return read_text_file(path);
    } catch (const std::runtime_error& e) {
      throw Error(e.what());
    }
  }

  // Parses text that must be one JSON object.
  json parse_object(const std::string& text) const {
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::exception& e) {  // a syntax error, or a number beyond double (1e999)
      throw Error(source_ + ": not valid JSON: " + json_error_text(e));
    }
    if (!doc.is_object()) fail("", "expected a JSON object");
    return doc;
  }

  // The "format" and "version" fields every versioned atomq document starts with.
  void require_format(const json& doc, std::string_view format, long long version) const {
    const std::string got = str(doc, "", "format");
    if (got != format)
      fail("format", "expected \"" + std::string(format) + "\", got \"" + got + "\"");
    const long long v = integer(doc, "", "version", 0);
    if (v != version)
      fail("version", "unsupported version " + std::to_string(v) + " (this build reads " +
                          std::to_string(version) + ")");
  }

  const json& object(const json& v, const std::string& field) const {
    if (!v.is_object()) fail(field, "expected an object");
    return v;
  }
  const json& member(const json& obj, const std::string& path, std::string_view key) const {
    object(obj, path);
    auto it = obj.find(key);
    if (it == obj.end()) fail(json_path(path, key), "missing");
    return *it;
  }
  // nullptr when the key is absent (or null).
  const json* optional_member(const json& obj, const std::string& path,
                              std::string_view key) const {
    object(obj, path);
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
  }
  // Fails on any key of obj not in `known`.
  void only(const json& obj, const std::string& path,
            std::initializer_list<std::string_view> known) const {
    for (const auto& item : object(obj, path).items()) {
      bool found = false;
      for (std::string_view k : known) found = found || item.key() == k;
      if (!found) fail(json_path(path, item.key()), "unknown field");
    }
  }

  std::string str(const json& v, const std::string& field) const {
    if (!v.is_string()) fail(field, "expected a string");
    return v.get<std::string>();
  }
  std::string str(const json& obj, const std::string& path, std::string_view key) const {
    return str(member(obj, path, key), json_path(path, key));
  }
  // The default when absent.
  std::string optional_str(const json& obj, const std::string& path, std::string_view key,
                           const std::string& absent = "") const {
    const json* v = optional_member(obj, path, key);
    return v ? str(*v, json_path(path, key)) : absent;
  }

  long long integer(const json& v, const std::string& field,
                    long long min_value = std::numeric_limits<long long>::min(),
                    long long max_value = std::numeric_limits<long long>::max()) const {
    if (!v.is_number_integer()) fail(field, "expected an integer");
    // Above 2^63 - 1 the library would wrap it to a negative number.
    if (v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(max_value))
      fail(field, range_text(min_value, max_value));
    const long long i = v.get<long long>();
    if (i < min_value || i > max_value) fail(field, range_text(min_value, max_value));
    return i;
  }
  long long integer(const json& obj, const std::string& path, std::string_view key,
                    long long min_value = std::numeric_limits<long long>::min(),
                    long long max_value = std::numeric_limits<long long>::max()) const {
    return integer(member(obj, path, key), json_path(path, key), min_value, max_value);
  }

  double number(const json& v, const std::string& field,
                double min_value = -std::numeric_limits<double>::infinity(),
                double max_value = std::numeric_limits<double>::infinity()) const {
    if (!v.is_number()) fail(field, "expected a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(field, "not a finite number");
    if (d < min_value || d > max_value) fail(field, range_text(min_value, max_value));
    return d;
  }
  double number(const json& obj, const std::string& path, std::string_view key,
                double min_value = -std::numeric_limits<double>::infinity(),
                double max_value = std::numeric_limits<double>::infinity()) const {
    return number(member(obj, path, key), json_path(path, key), min_value, max_value);
  }

  const json& array(const json& v, const std::string& field,
                    EmptyArray empty = EmptyArray::kRefused) const {
    if (!v.is_array()) fail(field, "expected an array");
    if (empty == EmptyArray::kRefused && v.empty()) fail(field, "empty");
    return v;
  }
  const json& array(const json& obj, const std::string& path, std::string_view key,
                    EmptyArray empty = EmptyArray::kRefused) const {
    return array(member(obj, path, key), json_path(path, key), empty);
  }

  // A string naming one value of E's name table.
  template <typename E>
  E enumerated(const json& v, const std::string& field) const {
    if (v.is_string())
      if (auto parsed = parse_enum<E>(v.get<std::string>())) return *parsed;
    fail(field, "expected one of " + enum_name_list<E>());
  }
  template <typename E>
  E enumerated(const json& obj, const std::string& path, std::string_view key) const {
    return enumerated<E>(member(obj, path, key), json_path(path, key));
  }

 private:
  template <typename T>
  static std::string range_text(T lo, T hi) {
    // infinity() is 0 for an integer type: a bound of 0 is a bound, not "none".
    bool has_lo = lo != std::numeric_limits<T>::lowest();
    bool has_hi = hi != std::numeric_limits<T>::max();
    if constexpr (std::is_floating_point_v<T>) {
      has_lo = has_lo && lo != -std::numeric_limits<T>::infinity();
      has_hi = has_hi && hi != std::numeric_limits<T>::infinity();
    }
    auto text = [](T x) {
      std::string s = std::to_string(x);
      if constexpr (std::is_floating_point_v<T>) {
        s.erase(s.find_last_not_of('0') + 1);
        if (!s.empty() && s.back() == '.') s.pop_back();
      }
      return s;
    };
    if (has_lo && has_hi) return "must be in " + text(lo) + ".." + text(hi);
    if (has_lo) return "must be >= " + text(lo);
    return "must be <= " + text(hi);
  }

  std::string source_;
};

}  // namespace atomq
