// One mechanism for every enum's names (command line, JSON fields, reports).
//
// An enum E declares its table next to it, in its own namespace, as a constexpr function that
// argument-dependent lookup finds:
//
//   enum class Color { kRed, kBlue };
//   constexpr std::array<atomq::EnumName<Color>, 2> enum_names(Color) {
//     return {{{Color::kRed, "red"}, {Color::kBlue, "blue"}}};
//   }
//
// and everything else uses enum_name(v), parse_enum<E>(text), enum_values<E>() and
// enum_name_list<E>() — never a switch of its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atomq {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

// The name of v in E's table; "?" for a value the table lacks (a cast integer).
template <typename E>
std::string enum_name(E v) {
  for (const auto& entry : enum_names(E{}))
    if (entry.value == v) return std::string(entry.name);
  return "?";
}

template <typename E>
std::optional<E> parse_enum(std::string_view text) {
  for (const auto& entry : enum_names(E{}))
    if (entry.name == text) return entry.value;
  return std::nullopt;
}

// Every value, in table order.
template <typename E>
std::vector<E> enum_values() {
  std::vector<E> out;
  for (const auto& entry : enum_names(E{})) out.push_back(entry.value);
  return out;
}

// "\"a\", \"b\"" (quoted) or "a, b": the choices an error message or --help lists.
template <typename E>
std::string enum_name_list(bool quoted = true) {
  std::string out;
  for (const auto& entry : enum_names(E{})) {
    if (!out.empty()) out += ", ";
    out += quoted ? "\"" + std::string(entry.name) + "\"" : std::string(entry.name);
  }
  return out;
}

}  // namespace atomq
