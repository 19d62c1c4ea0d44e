// Internal: how passes print as pipeline text. Not part of the API.
//
// The printer is canonical: every option is written, in declaration order, so
// that two equal pipelines print the same and a printed pipeline parses back to
// itself. Strings that are not plain words are quoted.
module;
#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
export module passline:text_format;
import :value;
import :plan;

namespace passline::detail {

/// Characters a bare option value or name may hold.
constexpr bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == '+';
}

/// A value as it appears in `Name{option=value}`.
std::string value_text(const Value& value) {
  std::string text = format_value(value);
  const bool bare = !text.empty() && std::ranges::all_of(text, is_word_char);
  if (bare) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

/// `Name{a=1 b=x}`: a pass with its option values.
inline std::string with_options(std::string_view name, std::span<const std::pair<std::string, Value>> options) {
  std::string text(name);
  if (options.empty()) return text;
  text += "{";
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (i > 0) text += " ";
    text += options[i].first + "=" + value_text(options[i].second);
  }
  return text + "}";
}

/// One step of a plan: a pass with its options, or a pipeline's name.
template <class IR>
std::string step_text(const PassNode<IR>& node) {
  if (node.pipeline()) return std::string(node.info.name);
  return with_options(node.info.name, node.options);
}

/// `A,B,seq(C,D)` at the top; `seq(...)` when nested.
template <class IR>
std::string node_text(const PassNode<IR>& node, bool top) {
  if (!node.printed_as.empty()) return node.printed_as;
  if (const auto* pipeline = node.pipeline()) {
    std::string text = top ? "" : "seq(";
    for (std::size_t i = 0; i < pipeline->passes.size(); ++i) {
      if (i > 0) text += ",";
      text += node_text(*pipeline->passes[i], false);
    }
    return top ? text : text + ")";
  }
  return with_options(node.info.name, node.options);
}

}  // namespace passline::detail
