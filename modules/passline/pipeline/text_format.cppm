// How passes print as pipeline text: internal but for `pass_text`.
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
import :node;

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

}  // namespace passline::detail

export namespace passline {

/// A pass with option values as pipeline text writes it: `Name{a=1 b=x}`,
/// or `Name` without options; a value that is not a plain word is quoted.
/// What `parse_pipeline` reads back as the same pass.
inline std::string pass_text(std::string_view name, std::span<const std::pair<std::string, Value>> options) {
  std::string text(name);
  if (options.empty()) return text;
  text += "{";
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (i > 0) text += " ";
    text += options[i].first + "=" + detail::value_text(options[i].second);
  }
  return text + "}";
}

}  // namespace passline

namespace passline::detail {

/// One step of a plan: a pass with its options, or a pipeline's name.
template <class IR>
std::string step_text(const PassNode<IR>& node) {
  if (node.pipeline()) return std::string(node.info.name);
  return pass_text(node.info.name, node.options);
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
  return pass_text(node.info.name, node.options);
}

}  // namespace passline::detail
