// Values of pass options and config keys: one small closed set of types.
//
// Options and config values are written in pipeline text and on command lines,
// listed with their types and defaults, and printed back canonically. A closed
// variant of bool, integer, float and string covers what passes need and keeps
// parsing and printing in one place.
module;
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>

#include <fmt/format.h>
export module passline:value;

export namespace passline {

/// An option or config value.
using Value = std::variant<bool, std::int64_t, double, std::string>;

/// The type's name as users write and read it: `bool`, `int`, `float`, `string`.
constexpr std::string_view value_type_name(std::size_t index) {
  constexpr std::string_view names[] = {"bool", "int", "float", "string"};
  return names[index];
}
inline std::string_view value_type_name(const Value& value) { return value_type_name(value.index()); }
/// The canonical text of a value, which `parse_value` reads back exactly.
inline std::string format_value(const Value& value) {
  return std::visit(
      []<class T>(const T& v) -> std::string {
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return v;
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

}  // namespace passline

// Internal to the library.
namespace passline {

/// The C++ types a value may have.
template <class T>
concept ValueType = std::is_same_v<T, bool> || std::is_same_v<T, std::int64_t> ||
                    std::is_same_v<T, double> || std::is_same_v<T, std::string>;

/// The type with its article, as messages say it: "a bool", "an int".
constexpr std::string_view a_value_type(std::size_t index) {
  constexpr std::string_view names[] = {"a bool", "an int", "a float", "a string"};
  return names[index];
}

/// Reads `text` as a value of the type with index `type` (as in `Value`).
inline std::optional<Value> parse_value(std::size_t type, std::string_view text) {
  switch (type) {
    case 0:
      if (text == "true") return Value(true);
      if (text == "false") return Value(false);
      return std::nullopt;
    case 1: {
      std::int64_t number = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
      return Value(number);
    }
    case 2: {
      double number = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
      return Value(number);
    }
    default:
      return Value(std::string(text));
  }
}

/// The index in `Value` of the type T.
template <ValueType T>
inline constexpr std::size_t value_index = std::is_same_v<T, bool>           ? 0
                                           : std::is_same_v<T, std::int64_t> ? 1
                                           : std::is_same_v<T, double>       ? 2
                                                                             : 3;

}  // namespace passline
