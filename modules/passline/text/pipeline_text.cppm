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
#include <range/v3/algorithm/find.hpp>
export module passline:pipeline_text;
import :value;
import :options;
import :pass;
import :registry;
import :error;
import :text_format;
import passline.support;

namespace passline {

/// How deep `seq(` may nest in pipeline text: the parser and the run of a
/// pipeline recurse once a level.
inline constexpr std::size_t max_pipeline_nesting = 64;

}  // namespace passline

namespace passline::detail {

/// One element of pipeline text, checked against the registry: a pass with
/// the options the text sets, or (with no name) a `seq(...)` of elements.
struct PipelineElement {
  std::string name;
  OptionValues options;
  std::vector<PipelineElement> passes;
};

/// The parser, the same for every IR: it reads names and options through the
/// registry's catalog and hands back what the text says; `build` makes passes.
class PipelineParser {
 public:
  PipelineParser(const PassCatalog& catalog, std::string_view text) : catalog_(catalog), text_(text) {}

  std::vector<PipelineElement> parse() {
    std::vector<PipelineElement> elements = list();
    if (at_end()) return elements;
    if (peek() == ')') fail(pos_, 1, "unexpected ')' with no 'seq(' to close");
    fail(pos_, 1, fmt::format("expected ',' between passes, found '{}'", support::printable(support::first_character(text_.substr(pos_)))));
  }

 private:
  std::vector<PipelineElement> list() {
    std::vector<PipelineElement> elements;
    skip_spaces();
    if (at_end() || peek() == ')') return elements;
    elements.push_back(element());
    for (skip_spaces(); !at_end() && peek() == ','; skip_spaces()) {
      ++pos_;
      skip_spaces();
      if (at_end() || peek() == ',' || peek() == ')') fail(pos_, 1, "expected a pass name after ','");
      elements.push_back(element());
    }
    return elements;
  }

  PipelineElement element() {
    const std::size_t start = pos_;
    const std::string_view name = word();
    if (name.empty()) fail(pos_, 1, fmt::format("expected a pass name, found '{}'", support::printable(support::first_character(text_.substr(pos_)))));
    if (name == "seq") return nested(start);
    if (!catalog_.contains(name)) {
      fail(start, name.size(), unknown_pass(support::printable(name), support::did_you_mean(name, catalog_.names())));
    }
    PipelineElement pass{.name = std::string(name), .options = {}, .passes = {}};
    skip_spaces();
    if (!at_end() && peek() == '{') pass.options = option_list(name);
    return pass;
  }

  PipelineElement nested(std::size_t at) {
    skip_spaces();
    if (at_end() || peek() != '(') fail(pos_, 1, "expected '(' after 'seq'");
    if (depth_ == max_pipeline_nesting) {
      fail(at, 3, fmt::format("'seq(' nested more than {} deep", max_pipeline_nesting));
    }
    const std::size_t open = pos_++;
    ++depth_;
    PipelineElement seq{.name = {}, .options = {}, .passes = list()};
    --depth_;
    skip_spaces();
    if (at_end()) fail(open, 1, fmt::format("'seq(' at column {} is never closed", open + 1));
    if (peek() != ')') fail(pos_, 1, fmt::format("expected ',' or ')', found '{}'", support::printable(support::first_character(text_.substr(pos_)))));
    ++pos_;
    return seq;
  }

  OptionValues option_list(std::string_view pass) {
    const std::size_t open = pos_++;
    const std::vector<OptionSpec>& specs = catalog_.options_of(pass);
    OptionValues values;
    for (skip_spaces(); at_end() || peek() != '}'; skip_spaces()) {
      if (at_end()) fail(open, 1, fmt::format("'{{' at column {} is never closed", open + 1));
      const std::size_t name_at = pos_;
      const std::string_view name = word();
      if (name.empty()) fail(pos_, 1, fmt::format("expected an option name, found '{}'", support::printable(support::first_character(text_.substr(pos_)))));
      const auto spec = ranges::find(specs, name, &OptionSpec::name);
      if (spec == specs.end()) {
        fail(name_at, name.size(), no_such_option(pass, support::printable(name), support::did_you_mean(name, option_names(specs))));
      }
      if (ranges::any_of(values, [&](const auto& v) { return v.first == name; })) {
        fail(name_at, name.size(), fmt::format("option '{}' is given twice", name));
      }
      if (at_end() || peek() != '=') fail(pos_, 1, fmt::format("expected '=' after option '{}'", name));
      ++pos_;
      const std::size_t value_at = pos_;
      const std::string text = value();
      std::optional<Value> parsed = parse_value(spec->default_value.index(), text);
      if (!parsed) {
        fail(value_at, std::max<std::size_t>(pos_ - value_at, 1),
             option_takes(name, pass, spec->default_value.index(), fmt::format("'{}'", support::printable(text))));
      }
      values.emplace_back(std::string(name), std::move(*parsed));
    }
    ++pos_;
    return values;
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
    throw PipelineSyntaxError(fmt::format("pipeline:1:{}: error: {}", at + 1, message), std::string(text_), at + 1,
                              width);
  }

  const PassCatalog& catalog_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;  // of the 'seq(' being read
};

/// The passes of a parsed element, from the registry it was checked against.
template <class IR>
Pass<IR> build(const PipelineElement& element, const Registry<IR>& registry) {
  if (!element.name.empty()) return registry.create(element.name, element.options);
  std::vector<Pass<IR>> passes;
  for (const PipelineElement& pass : element.passes) passes.push_back(build(pass, registry));
  return registry.sequential(std::move(passes));
}

}  // namespace passline::detail

export namespace passline {

/// Parses pipeline text into a runtime pipeline of passes from `registry`.
template <class IR>
Pass<IR> parse_pipeline(std::string_view text, const Registry<IR>& registry = Registry<IR>::global()) {
  std::vector<Pass<IR>> passes;
  detail::PipelineParser parser(detail::RegistryAccess::catalog(registry), text);
  for (const detail::PipelineElement& element : parser.parse()) passes.push_back(detail::build(element, registry));
  return detail::make_pipeline(std::move(passes), {}, &detail::RegistryAccess::source(registry),
                               detail::PipelineKind::list);
}

}  // namespace passline
