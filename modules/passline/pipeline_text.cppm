// Pipeline text: `InferType,Inline{max-size=20},seq(SimplifyExpr,DeadCodeElimination)`.
//
//   pipeline := [element (',' element)*]
//   element  := 'seq' '(' pipeline ')' | NAME ['{' [option (' ' option)*] '}']
//   option   := NAME '=' (WORD | '"' chars '"')
//
// Names are looked up in a registry, so a pipeline registered by name is used
// like a pass; `seq(` nests at most max_pipeline_nesting deep. Every error names the absolute column and carries a caret under
// the offending text, with a suggestion where a name is close to a known one.
// `Pass::text()` prints the canonical form, which parses back to itself.
module;
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <range/v3/algorithm/any_of.hpp>
export module passline:pipeline_text;
import :value;
import :options;
import :pass;
import :registry;
import :error;
import :suggest;
import :text_format;
import :message;

export namespace passline {

/// How deep `seq(` may nest in pipeline text: the parser and the run of a
/// pipeline recurse once a level.
inline constexpr std::size_t max_pipeline_nesting = 64;

}  // namespace passline

namespace passline::detail {

template <class IR>
class PipelineParser {
 public:
  PipelineParser(const Registry<IR>& registry, std::string_view text) : registry_(registry), text_(text) {}

  Pass<IR> parse() {
    std::vector<Pass<IR>> passes = list();
    if (at_end()) return make_sequential(std::move(passes), {}, &registry_, true);  // the top-level list
    if (peek() == ')') fail(pos_, 1, "unexpected ')' with no 'seq(' to close");
    fail(pos_, 1, fmt::format(fmt::runtime("expected ',' between passes, found '{}'"), printable(first_character(text_.substr(pos_)))));
  }

 private:
  std::vector<Pass<IR>> list() {
    std::vector<Pass<IR>> passes;
    skip_spaces();
    if (at_end() || peek() == ')') return passes;
    passes.push_back(element());
    for (skip_spaces(); !at_end() && peek() == ','; skip_spaces()) {
      ++pos_;
      skip_spaces();
      if (at_end() || peek() == ',' || peek() == ')') fail(pos_, 1, "expected a pass name after ','");
      passes.push_back(element());
    }
    return passes;
  }

  Pass<IR> element() {
    const std::size_t start = pos_;
    const std::string_view name = word();
    if (name.empty()) fail(pos_, 1, fmt::format(fmt::runtime("expected a pass name, found '{}'"), printable(first_character(text_.substr(pos_)))));
    if (name == "seq") return nested(start);
    if (!registry_.contains(name)) {
      fail(start, name.size(), fmt::format(fmt::runtime("unknown pass '{}'{}"), printable(name), did_you_mean(name, registry_.names())));
    }
    OptionValues options;
    skip_spaces();
    if (!at_end() && peek() == '{') options = option_list(name);
    return registry_.create(name, options);
  }

  Pass<IR> nested(std::size_t at) {
    skip_spaces();
    if (at_end() || peek() != '(') fail(pos_, 1, "expected '(' after 'seq'");
    if (depth_ == max_pipeline_nesting) {
      fail(at, 3, fmt::format(fmt::runtime("'seq(' nested more than {} deep"), max_pipeline_nesting));
    }
    const std::size_t open = pos_++;
    ++depth_;
    std::vector<Pass<IR>> passes = list();
    --depth_;
    skip_spaces();
    if (at_end()) fail(open, 1, fmt::format(fmt::runtime("'seq(' at column {} is never closed"), open + 1));
    if (peek() != ')') fail(pos_, 1, fmt::format(fmt::runtime("expected ',' or ')', found '{}'"), printable(first_character(text_.substr(pos_)))));
    ++pos_;
    return registry_.sequential(std::move(passes));
  }

  OptionValues option_list(std::string_view pass) {
    const std::size_t open = pos_++;
    const std::vector<OptionSpec>& specs = registry_.options_of(pass);
    OptionValues values;
    for (skip_spaces(); at_end() || peek() != '}'; skip_spaces()) {
      if (at_end()) fail(open, 1, fmt::format(fmt::runtime("'{{' at column {} is never closed"), open + 1));
      const std::size_t name_at = pos_;
      const std::string_view name = word();
      if (name.empty()) fail(pos_, 1, fmt::format(fmt::runtime("expected an option name, found '{}'"), printable(first_character(text_.substr(pos_)))));
      const OptionSpec* spec = find_spec(specs, name);
      if (!spec) {
        fail(name_at, name.size(), fmt::format(fmt::runtime("pass '{}' has no option '{}'{}"), pass, printable(name),
                                               did_you_mean(name, option_names(specs))));
      }
      if (ranges::any_of(values, [&](const auto& v) { return v.first == name; })) {
        fail(name_at, name.size(), fmt::format(fmt::runtime("option '{}' is given twice"), name));
      }
      if (at_end() || peek() != '=') fail(pos_, 1, fmt::format(fmt::runtime("expected '=' after option '{}'"), name));
      ++pos_;
      const std::size_t value_at = pos_;
      const std::string text = value();
      std::optional<Value> parsed = parse_value(spec->default_value.index(), text);
      if (!parsed) {
        fail(value_at, std::max<std::size_t>(pos_ - value_at, 1),
             fmt::format(fmt::runtime("option '{}' of pass '{}' takes {}, not '{}'"), name, pass,
                         a_value_type(spec->default_value.index()), printable(text)));
      }
      values.emplace_back(std::string(name), std::move(*parsed));
    }
    ++pos_;
    return values;
  }

  static const OptionSpec* find_spec(const std::vector<OptionSpec>& specs, std::string_view name) {
    for (const OptionSpec& spec : specs) {
      if (spec.name == name) return &spec;
    }
    return nullptr;
  }

  std::string value() {
    if (at_end() || peek() != '"') return std::string(word());
    const std::size_t open = pos_++;
    std::string text;
    for (; !at_end() && peek() != '"'; ++pos_) {
      if (peek() == '\\' && pos_ + 1 < text_.size()) ++pos_;
      text += peek();
    }
    if (at_end()) fail(open, 1, "unterminated string");
    ++pos_;
    return text;
  }

  std::string_view word() {
    const std::size_t start = pos_;
    while (!at_end() && is_word_char(peek())) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  void skip_spaces() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n')) ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  [[noreturn]] void fail(std::size_t at, std::size_t width, const std::string& message) const {
    throw PipelineSyntaxError(fmt::format(fmt::runtime("pipeline:1:{}: error: {}"), at + 1, message), std::string(text_), at + 1,
                              width);
  }

  const Registry<IR>& registry_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;  // of the 'seq(' being read
};

}  // namespace passline::detail

export namespace passline {

/// Parses pipeline text into a runtime pipeline of passes from `registry`.
template <class IR>
Pass<IR> parse_pipeline(std::string_view text, const Registry<IR>& registry = Registry<IR>::global()) {
  return detail::PipelineParser<IR>(registry, text).parse();
}

}  // namespace passline
