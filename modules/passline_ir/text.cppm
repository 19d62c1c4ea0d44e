// The text format of the reference IR: parser and printer (grammar in docs/ir.md).
//
// The parser is a hand-written recursive descent over a small lexer. Chains of
// `let`s, the common shape of large functions, are parsed in a loop, never by
// recursion, so a function of a million lets parses in constant stack; other
// nesting is limited to a depth that no program needs, and exceeding it is an
// error like any other. Every error is an IRError at the offending token.
// The printer writes one `let` per line and renames a variable only when its
// name is already taken in the function, so print(parse(text)) is a fixed point.
module;
#include <charconv>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <algorithm>
#include <deque>
#include <functional>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <tbb/concurrent_queue.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>
export module passline.ir:text;
import :types;
import :body;
import :names;
import :source;
import :functions;
import passline;

namespace passline::ir::detail {

enum class Token : std::uint8_t {
  end, ident, local, global, integer, floating, lparen, rparen, lbrace, rbrace, comma, semicolon, colon, equals,
  arrow, dot, attr_open, rbracket,
};

std::string_view describe(Token t) {
  constexpr std::string_view names[] = {"end of input", "a name", "a local '%name'", "a global '@name'",
                                        "an integer", "a float", "'('", "')'", "'{'", "'}'", "','", "';'", "':'",
                                        "'='", "'->'", "'.'", "'#['", "']'"};
  return names[static_cast<int>(t)];
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// How deep the parser recurses: a nesting of max_nesting as the printer
/// writes it takes up to two levels a step (an operand, and the parentheses
/// around a block in operand position).
constexpr std::size_t max_recursion = 2 * max_nesting + 2;
constexpr std::size_t release_every = std::size_t{1} << 20;
/// A body this many nodes long gets room for the rest of it (make_room).
constexpr std::size_t reserve_after = std::size_t{1} << 16;

class Parser {
 public:
  explicit Parser(std::shared_ptr<const Source> source) : source_(std::move(source)), text_(source_->text()) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // a UTF-8 byte-order mark is not text
    advance();
  }
  /// A parser of the functions between offsets `begin` and `end` of the
  /// source alone, positions in the whole: one of a parallel parse's pieces.
  Parser(std::shared_ptr<const Source> source, std::size_t begin, std::size_t end)
      : source_(std::move(source)), text_(source_->text().substr(0, end)), pos_(begin), released_(begin) {
    if (begin == 0 && text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;
    advance();
  }

  Parser(const Parser&) = delete;  // its table of names points back at it
  Parser& operator=(const Parser&) = delete;

  /// A type alone, as `parse_type` (the exported one) reads it.
  Type parse_whole_type() {
    const Type type = parse_type();
    if (token_ != Token::end) expected("the end of the type");
    return type;
  }

  Module parse_module() {
    Module module;
    module.source = source_;
    std::unordered_map<std::string, std::uint32_t> defined;
    while (token_ != Token::end) {
      Function fn = parse_function();
      if (auto [it, fresh] = defined.try_emplace(fn.name, fn.loc); !fresh) {
        error(fn.loc + 4, fmt::format("function '@{}' is defined twice (first at line {})", printable(fn.name),
                                      source_->position(it->second).line));
      }
      module.functions.push_back(std::move(fn));
    }
    source_->check_intact();
    return module;
  }

  /// The functions up to the end, with no check across them. The text read
  /// is handed back whole: a piece's last stretch is not left in memory.
  std::vector<Function> parse_functions() {
    std::vector<Function> functions;
    while (token_ != Token::end) functions.push_back(parse_function());
    source_->release(released_, text_.size());
    return functions;
  }

 private:
  // -- Lexer ------------------------------------------------------------------

  /// An error at `at`; or, if the file was truncated as it was read (so
  /// that the parser met zeros), that.
  [[noreturn]] void error(std::uint32_t at, const std::string& message) const {
    source_->check_intact();
    throw IRError(*source_, at, message);
  }
  [[noreturn]] void expected(std::string_view what) const {
    error(start_, fmt::format("expected {}, found {}", what, found()));
  }
  std::string found() const {
    if (token_ == Token::end) return "end of input";
    return fmt::format("'{}'", printable(spelling()));
  }
  std::string_view spelling() const { return text_.substr(start_, pos_ - start_); }

  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (is_space(c)) {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  void advance() {
    const bool after_dot = token_ == Token::dot;
    skip_space();
    start_ = static_cast<std::uint32_t>(pos_);
    if (start_ - released_ >= release_every) {  // the text behind is done with
      source_->release(released_, start_);
      released_ = start_;
    }
    if (pos_ >= text_.size()) {
      token_ = Token::end;
      return;
    }
    const char c = text_[pos_];
    auto single = [&](Token t) {
      ++pos_;
      token_ = t;
    };
    switch (c) {
      case '(': return single(Token::lparen);
      case ')': return single(Token::rparen);
      case '{': return single(Token::lbrace);
      case '}': return single(Token::rbrace);
      case ',': return single(Token::comma);
      case ';': return single(Token::semicolon);
      case ':': return single(Token::colon);
      case '=': return single(Token::equals);
      case '.': return single(Token::dot);
      case ']': return single(Token::rbracket);
      default: break;
    }
    if (c == '#' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '[') {
      pos_ += 2;
      token_ = Token::attr_open;
      return;
    }
    if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
      pos_ += 2;
      token_ = Token::arrow;
      return;
    }
    if (c == '%' || c == '@') {
      ++pos_;
      const std::size_t name_start = pos_;
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      if (pos_ == name_start) error(start_, fmt::format("expected a name after '{}'", c));
      token_ = c == '%' ? Token::local : Token::global;
      return;
    }
    if (is_digit(c) ||
        (c == '-' && pos_ + 1 < text_.size() &&
         (is_digit(text_[pos_ + 1]) || text_.substr(pos_ + 1, 3) == "inf" || text_.substr(pos_ + 1, 3) == "nan"))) {
      lex_number(after_dot);
      return;
    }
    if (is_name_char(c)) {
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      token_ = Token::ident;
      if (spelling() == "inf" || spelling() == "nan") token_ = Token::floating;
      return;
    }
    error(start_, fmt::format("unexpected character '{}'", printable(first_character(text_.substr(pos_)))));
  }

  void lex_number(bool after_dot) {
    if (text_[pos_] == '-') ++pos_;
    if (text_.substr(pos_, 3) == "inf" || text_.substr(pos_, 3) == "nan") {
      pos_ += 3;
      token_ = Token::floating;
      return;
    }
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    token_ = Token::integer;
    if (after_dot) return;  // a projection index: `%t.0.1`
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) error(start_, "expected digits after the decimal point");
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
      token_ = Token::floating;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || !is_digit(text_[pos_])) error(start_, "expected digits in the exponent");
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
      token_ = Token::floating;
    }
    if (pos_ < text_.size() && is_name_char(text_[pos_])) {
      error(static_cast<std::uint32_t>(pos_), fmt::format("unexpected '{}' after a number", printable(first_character(text_.substr(pos_)))));
    }
  }

  void expect(Token t) {
    if (token_ != t) expected(describe(t));
    advance();
  }
  bool accept(Token t) {
    if (token_ != t) return false;
    advance();
    return true;
  }
  bool at_keyword(std::string_view word) const { return token_ == Token::ident && spelling() == word; }
  void expect_keyword(std::string_view word) {
    if (!at_keyword(word)) expected(fmt::format("'{}'", word));
    advance();
  }

  // -- Types ------------------------------------------------------------------

  Type parse_type(std::size_t depth = 0) {
    const std::uint32_t at = start_;
    if (depth > max_nesting) error(at, fmt::format("type nested more than {} deep", max_nesting));
    if (at_keyword("i64")) return advance(), types::i64;
    if (at_keyword("f64")) return advance(), types::f64;
    if (at_keyword("bool")) return advance(), types::boolean;
    auto& table = TypeTable::global();
    if (accept(Token::lparen)) {
      std::vector<Type> elements;
      while (token_ != Token::rparen) {
        elements.push_back(parse_type(depth + 1));
        if (!accept(Token::comma)) break;
      }
      expect(Token::rparen);
      return table.tuple(elements);
    }
    if (at_keyword("fn")) {
      advance();
      expect(Token::lparen);
      std::vector<Type> params;
      while (token_ != Token::rparen) {
        params.push_back(parse_type(depth + 1));
        if (!accept(Token::comma)) break;
      }
      expect(Token::rparen);
      expect(Token::arrow);
      return table.function(params, parse_type(depth + 1));
    }
    if (token_ == Token::ident) error(at, fmt::format("unknown type '{}' (types: i64, f64, bool, (T, ...), fn(T, ...) -> T)", printable(spelling())));
    expected("a type");
  }

  // -- Functions ----------------------------------------------------------------

  Function parse_function() {
    Function fn;
    if (accept(Token::attr_open)) {
      do {
        if (token_ != Token::ident) expected("an attribute");
        if (spelling() == "export") {
          fn.exported = true;
        } else if (spelling() == "noopt") {
          fn.skip_optimization = true;
        } else {
          error(start_, fmt::format("unknown attribute '{}' (attributes: export, noopt)", printable(spelling())));
        }
        advance();
      } while (accept(Token::comma));
      expect(Token::rbracket);
    }
    fn.loc = start_;
    expect_keyword("def");
    if (token_ != Token::global) expected("a function name '@name'");
    fn.name = std::string(spelling().substr(1));
    advance();
    builder_ = BodyBuilder();
    height_.clear();
    names_.clear();
    counted_.clear();
    named_.clear();
    bound_.clear();
    std::vector<ExprId> params = parse_params();
    Type result = types::unknown;
    if (accept(Token::arrow)) result = parse_type();
    expect(Token::lbrace);
    reserved_ = false;
    const ExprId root = parse_expr(0);
    expect(Token::rbrace);
    // A small body's vectors grew by doubling: what they hold takes less
    // room than they have, and copying it is cheap. (A large one's room was
    // made once, by make_room, and its pages past the end are never touched.)
    if (!reserved_) builder_.shrink_to_fit();
    fn.body = builder_.finish(params, root, result);
    return fn;
  }

  /// Once a body is large (reserve_after nodes), room for the rest of the
  /// text (of this piece, in a parallel parse), which it may well take up:
  /// a node takes at least two characters. Room costs address space, not
  /// memory, and spares the copies (and the peak of old and new together)
  /// of growing.
  void make_room() {
    if (reserved_ || builder_.size() < reserve_after) return;
    reserved_ = true;
    builder_.reserve(builder_.size() + (text_.size() - pos_) / 2);
  }

  /// `(%a: T, ...)`; puts the parameters in view.
  std::vector<ExprId> parse_params() {
    expect(Token::lparen);
    std::vector<ExprId> params;
    while (token_ != Token::rparen) {
      if (token_ != Token::local) expected("a parameter '%name'");
      const std::uint32_t at = start_;
      const std::string_view name = spelling().substr(1);
      for (ExprId p : params) {
        if (builder_.name(p) == name) error(at, fmt::format("parameter '%{}' is declared twice", printable(name)));
      }
      advance();
      if (token_ != Token::colon) error(start_, fmt::format("parameter '%{}' needs a type: '%{}: i64'", printable(name), printable(name)));
      advance();
      params.push_back(new_var(name, parse_type(), at));
      if (!accept(Token::comma)) break;
    }
    expect(Token::rparen);
    return params;
  }

  /// A var named `name`, in view from now until its scope ends
  /// (`end_scope`). It shares the name with the vars of that name before it:
  /// a name is stored once, so the body has distinct names.
  ExprId new_var(std::string_view name, Type type, std::uint32_t at) { return new_var(name_number(name), type, at); }
  /// A var of the name numbered `number` (name_number).
  ExprId new_var(std::uint32_t number, Type type, std::uint32_t at) {
    Named& named = named_[number];
    const ExprId var = builder_.var_named({named.offset, named.length}, type, at);
    bound_.push_back({number, named.innermost});
    named.innermost = var;
    return var;
  }
  /// The number of the name `name` in this function, given when it is first
  /// met (its spelling stored then, once). A `let` asks where it reads the
  /// name, before its value (in which the var is not in view yet): a number
  /// with no var in view is not in view, so asking early changes nothing.
  std::uint32_t name_number(std::string_view name) {
    if (const auto c = counted(name)) {
      std::uint32_t& number = counted_.at(*c);
      if (number == no_name) number = store_name(name);
      return number;
    }
    const Spelled spelled = spell(name);
    if (const auto it = names_.find(spelled); it != names_.end()) return it->number;
    const std::uint32_t number = store_name(name);
    names_.insert(Name{number, spelled.hash});
    return number;
  }
  std::uint32_t store_name(std::string_view name) {
    const auto [offset, length] = builder_.store_name(name);
    named_.push_back({offset, length, no_expr});
    return static_cast<std::uint32_t>(named_.size() - 1);
  }

  /// Hands back the memory of the tables of names of a large function (a
  /// small one's are cleared for the next function, their room kept).
  void release_names() {
    if (named_.size() < large_names) return;
    names_ = decltype(names_)(0, NameHash{}, SameName{this});
    counted_.release();
    std::vector<Named>().swap(named_);
    std::vector<Bound>().swap(bound_);
  }

  /// The vars in view: a scope is a mark in `bound_`, and ending it puts
  /// back what each var made since hid. Vars come in and go out of view in
  /// stack order, so a name costs one look-up where it is read, and a binder
  /// two words while it is in view, whatever the depth or the size.
  std::size_t scope() const { return bound_.size(); }
  void end_scope(std::size_t mark) {
    while (bound_.size() > mark) {
      named_[bound_.back().name].innermost = bound_.back().hidden;
      bound_.pop_back();
    }
  }
  /// The var in view named `name`, or no_expr.
  ExprId in_view(std::string_view name) {
    const std::uint32_t number = find_number(name);
    return number == no_name ? no_expr : named_[number].innermost;
  }

  /// A name of the function, as the table of names keeps it: its number,
  /// and the hash of its text, so that growing the table reads no name.
  struct Name {
    std::uint32_t number;
    std::uint32_t hash;
  };
  /// A name as read, to look up.
  struct Spelled {
    std::string_view text;
    std::uint32_t hash;
  };
  static Spelled spell(std::string_view text) {
    return {text, static_cast<std::uint32_t>(std::hash<std::string_view>()(text))};
  }
  struct NameHash {
    using is_transparent = void;  // the table mixes the bits further
    std::size_t operator()(const auto& name) const { return name.hash; }
  };
  struct SameName {
    using is_transparent = void;
    const Parser* parser;
    std::string_view text(const Spelled& name) const { return name.text; }
    std::string_view text(const Name& name) const { return parser->text_of(name.number); }
    bool operator()(const auto& a, const auto& b) const { return a.hash == b.hash && text(a) == text(b); }
  };
  /// The number of the name `name`, or no_name if the function has not met
  /// it: a counted name by its counter (detail::CountedNames), any other by
  /// its spelling.
  std::uint32_t find_number(std::string_view name) {
    if (const auto c = counted(name)) return counted_.find(*c);
    const auto it = names_.find(spell(name));
    return it == names_.end() ? no_name : it->number;
  }
  std::string_view text_of(std::uint32_t number) const {
    const Named& named = named_[number];
    return builder_.stored_name({named.offset, named.length});
  }

  // -- Expressions --------------------------------------------------------------

  struct PendingLet {
    ExprId var;
    ExprId value;
    std::uint32_t loc;
  };

  /// `id`, a node just built, if it nests no deeper than max_nesting.
  ExprId nested(ExprId id) {
    grow_to(height_, builder_.size(), std::uint16_t{0});
    const Node& n = builder_[id];
    std::uint32_t h = 0;
    if (n.kind == Kind::let) {
      h = std::max<std::uint32_t>(height_[n.b] + 1u, height_[n.c]);
    } else {
      for_each_child(builder_, id, [&](ExprId c) { h = std::max<std::uint32_t>(h, height_[c] + 1u); });
    }
    if (h > max_nesting) error(n.loc, fmt::format("expression nested more than {} deep", max_nesting));
    height_[id] = static_cast<std::uint16_t>(h);
    return id;
  }

  ExprId parse_expr(std::size_t depth) {
    if (depth > max_recursion) error(start_, fmt::format("expression nested more than {} deep", max_nesting));
    std::vector<PendingLet> lets;
    const std::size_t outer = scope();
    while (at_keyword("let")) {
      const std::uint32_t loc = start_;
      advance();
      if (token_ != Token::local) expected("a variable '%name' after 'let'");
      const std::uint32_t var_at = start_;
      const std::uint32_t name = name_number(spelling().substr(1));
      advance();
      Type type = types::unknown;
      if (accept(Token::colon)) type = parse_type();
      expect(Token::equals);
      const ExprId value = parse_expr(depth + 1);
      if (token_ != Token::semicolon) expected("';' after the value of a let");
      advance();
      lets.push_back({new_var(name, type, var_at), value, loc});
      make_room();
    }
    ExprId result = parse_non_let(depth);
    end_scope(outer);
    // A function's body (depth 0) reads no name after its last expression:
    // a large one's tables of names go before its lets are built, where
    // they would make the peak.
    if (depth == 0) release_names();
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
      result = nested(builder_.let(it->var, it->value, result, types::unknown, it->loc));
    }
    return result;
  }

  ExprId parse_non_let(std::size_t depth) {
    const std::uint32_t loc = start_;
    if (at_keyword("if")) {
      advance();
      const ExprId cond = parse_expr(depth + 1);
      expect(Token::lbrace);
      const ExprId then = parse_expr(depth + 1);
      expect(Token::rbrace);
      expect_keyword("else");
      expect(Token::lbrace);
      const ExprId otherwise = parse_expr(depth + 1);
      expect(Token::rbrace);
      return nested(builder_.if_(cond, then, otherwise, types::unknown, loc));
    }
    return parse_postfix(depth);
  }

  ExprId parse_postfix(std::size_t depth) {
    const std::uint32_t loc = start_;  // calls and projections point at what they apply to
    ExprId e = parse_primary(depth);
    for (;;) {
      if (token_ == Token::lparen) {
        std::vector<ExprId> args = parse_args(depth);
        e = nested(builder_.call(e, args, types::unknown, loc));
      } else if (accept(Token::dot)) {
        if (token_ != Token::integer || spelling().starts_with('-')) expected("a tuple index after '.'");
        const std::uint32_t index = parse_index();
        advance();
        e = nested(builder_.proj(e, index, types::unknown, loc));
      } else {
        return e;
      }
    }
  }

  std::uint32_t parse_index() const {
    std::uint32_t index = 0;
    const std::string_view digits = spelling();
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc()) error(start_, fmt::format("tuple index '{}' is too large", printable(digits)));
    return index;
  }

  std::vector<ExprId> parse_args(std::size_t depth) {
    expect(Token::lparen);
    std::vector<ExprId> args;
    while (token_ != Token::rparen) {
      args.push_back(parse_expr(depth + 1));
      if (!accept(Token::comma)) break;
    }
    expect(Token::rparen);
    return args;
  }

  ExprId parse_primary(std::size_t depth) {
    const std::uint32_t loc = start_;
    switch (token_) {
      case Token::local: {
        const std::string_view name = spelling().substr(1);
        const ExprId var = in_view(name);
        if (var == no_expr) error(loc, fmt::format("unknown variable '%{}'", printable(name)));
        advance();
        return var;
      }
      case Token::global: {
        const ExprId g = builder_.global(spelling().substr(1), types::unknown, loc);
        advance();
        return g;
      }
      case Token::integer: {
        std::int64_t value = 0;
        const std::string_view digits = spelling();
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (ec != std::errc()) error(loc, fmt::format("integer '{}' does not fit in i64", printable(digits)));
        advance();
        return builder_.int_const(value, loc);
      }
      case Token::floating: return builder_.float_const(parse_float(), loc);
      case Token::lparen: return parse_tuple(depth);
      case Token::ident: break;
      default: expected("an expression");
    }
    if (at_keyword("true") || at_keyword("false")) {
      const bool value = at_keyword("true");
      advance();
      return builder_.bool_const(value, loc);
    }
    if (at_keyword("fn")) return parse_fn(depth);
    const std::string_view name = spelling();
    std::optional<Op> op;
    for (Op candidate : all_ops) {
      if (op_name(candidate) == name) op = candidate;
    }
    if (!op) error(loc, fmt::format("unknown operator '{}'{}", printable(name), suggestion(name)));
    advance();
    if (token_ != Token::lparen) error(start_, fmt::format("expected '(' after operator '{}'", printable(name)));
    std::vector<ExprId> operands = parse_args(depth);
    if (static_cast<int>(operands.size()) != op_arity(*op)) {
      error(loc, fmt::format("operator '{}' takes {} operand{}, not {}", name, op_arity(*op),
                             op_arity(*op) == 1 ? "" : "s", operands.size()));
    }
    return nested(builder_.op(*op, operands, types::unknown, loc));
  }

  static std::string suggestion(std::string_view name) {
    std::vector<std::string_view> names;
    for (Op op : all_ops) names.push_back(op_name(op));
    return did_you_mean(name, names);
  }

  double parse_float() {
    const std::string_view text = spelling();
    double value = 0;
    if (text == "inf") {
      value = INFINITY;
    } else if (text == "-inf") {
      value = -INFINITY;
    } else if (text == "nan") {
      value = NAN;
    } else if (text == "-nan") {
      value = -NAN;
    } else {
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc()) error(start_, fmt::format("float '{}' is out of range", printable(text)));
    }
    advance();
    return value;
  }

  ExprId parse_tuple(std::size_t depth) {
    const std::uint32_t loc = start_;
    expect(Token::lparen);
    std::vector<ExprId> elements;
    bool trailing_comma = false;
    while (token_ != Token::rparen) {
      elements.push_back(parse_expr(depth + 1));
      trailing_comma = accept(Token::comma);
      if (!trailing_comma) break;
    }
    expect(Token::rparen);
    if (elements.size() == 1 && !trailing_comma) return elements.front();  // parentheses
    return nested(builder_.tuple(elements, types::unknown, loc));
  }

  ExprId parse_fn(std::size_t depth) {
    const std::uint32_t loc = start_;
    advance();
    const std::size_t outer = scope();
    std::vector<ExprId> params = parse_params();
    Type result = types::unknown;
    if (accept(Token::arrow)) result = parse_type();
    expect(Token::lbrace);
    const ExprId body = parse_expr(depth + 1);
    expect(Token::rbrace);
    end_scope(outer);
    Type type = types::unknown;
    if (result.known()) {
      std::vector<Type> param_types;
      for (ExprId p : params) param_types.push_back(builder_[p].type);
      type = TypeTable::global().function(param_types, result);
      if (TypeTable::global().depth(type) > max_nesting) {
        error(loc, fmt::format("the closure's type nests more than {} deep", max_nesting));
      }
    }
    return nested(builder_.fn(params, body, type, loc));
  }

  std::shared_ptr<const Source> source_;
  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint32_t start_ = 0;
  Token token_ = Token::end;
  BodyBuilder builder_;
  // Each name of the function that has no counter, by its number, hashed
  // and compared by its spelling (`named_`); the others by their counter.
  boost::unordered_flat_set<Name, NameHash, SameName> names_{0, NameHash{}, SameName{this}};
  CountedNames counted_;
  struct Named {
    std::uint32_t offset, length;  // its spelling among the body's names
    ExprId innermost;              // the var of the name in view, or no_expr
  };
  std::vector<Named> named_;  // per name number
  static constexpr std::uint32_t no_name = CountedNames::none;
  static constexpr std::size_t large_names = std::size_t{1} << 16;  // see release_names
  struct Bound {
    std::uint32_t name;  // its number
    ExprId hidden;       // the var of the name it hides, or no_expr
  };
  std::vector<Bound> bound_;  // the vars in view, the innermost last
  std::size_t released_ = 0;                         // where the source text was last handed back
  bool reserved_ = false;                            // whether make_room made room for this body
  std::vector<std::uint16_t> height_;                // per node built: its nesting, at most max_nesting (see ir::nesting)
  static_assert(max_nesting < 0xffff);
};

/// Text appended to a string through a cursor: a piece is one copy, and the
/// string grows only when a piece does not fit, by as much as was written
/// through this cursor (so the room made, and zeroed, is in proportion to the
/// text written here, however long the string already is). The string holds
/// exactly the text written once this is destroyed.
class TextOut {
 public:
  explicit TextOut(std::string& text) : text_(text), start_(text.size()) {
    text_.resize(start_ + 4096);
    cursor_ = text_.data() + start_;
    end_ = text_.data() + text_.size();
  }
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;
  ~TextOut() { text_.resize(size()); }

  inline void put(std::string_view piece) {
    const std::size_t n = piece.size();
    if (static_cast<std::size_t>(end_ - cursor_) < n) grow(n);
    copy(cursor_, piece.data(), n);
    cursor_ += n;
  }
  inline void put(char c) {
    if (cursor_ == end_) grow(1);
    *cursor_++ = c;
  }
  inline void spaces(std::size_t n) {
    static constexpr std::string_view indent = "                ";
    while (n > indent.size()) {
      put(indent);
      n -= indent.size();
    }
    put(indent.substr(0, n));
  }
  inline void integer(std::int64_t value) { commit(decimal(room(max_decimal), value)); }

  /// Room for `n` bytes at the cursor, to write through a pointer of one's
  /// own (held in a register, where the cursor, which any byte written
  /// might alias, is not) and then `commit`.
  inline char* room(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cursor_) < n) grow(n);
    return cursor_;
  }
  inline void commit(char* end) { cursor_ = end; }
  /// Writes `value` in decimal at `to` (room for max_decimal); returns the end.
  static constexpr std::size_t max_decimal = 20;  // -9223372036854775808
  static inline char* decimal(char* to, std::int64_t value) { return std::to_chars(to, to + max_decimal, value).ptr; }
  /// Writes `piece` at `to`; returns the end.
  static inline char* write(char* to, std::string_view piece) {
    copy(to, piece.data(), piece.size());
    return to + piece.size();
  }

  inline std::size_t size() const { return static_cast<std::size_t>(cursor_ - text_.data()); }
  inline std::string_view text() const { return {text_.data(), size()}; }
  void clear() { cursor_ = text_.data(); }

 private:
  /// Copies `n` bytes. Most pieces are short (a name, an operator, a type):
  /// two overlapping moves of a fixed size copy them, with no call.
  static inline void copy(char* to, const char* from, std::size_t n) {
    if (n >= 8 && n <= 16) {
      std::memcpy(to, from, 8);
      std::memcpy(to + n - 8, from + n - 8, 8);
    } else if (n >= 4 && n < 8) {
      std::memcpy(to, from, 4);
      std::memcpy(to + n - 4, from + n - 4, 4);
    } else if (n > 16) {
      std::memcpy(to, from, n);
    } else if (n > 0) {
      to[0] = from[0];
      to[n / 2] = from[n / 2];
      to[n - 1] = from[n - 1];
    }
  }

  void grow(std::size_t piece) {
    const std::size_t used = size();
    text_.resize(used + std::max(piece, used - start_) + 4096);
    cursor_ = text_.data() + used;
    end_ = text_.data() + text_.size();
  }

  std::string& text_;
  std::size_t start_;
  char* cursor_;
  char* end_;
};

/// Prints one function, naming each variable once. It meets the nodes in the
/// order a fingerprint does, so it fingerprints a body not fingerprinted yet
/// on the way, for a fraction of a walk of its own.
class Printer {
 public:
  explicit Printer(const Body& body)
      : body_(body),
        vars_(body.size(), 0),
        taken_(0, TakenHash{{this}}, TakenEqual{{this}}),
        by_slot_(body.distinct_names()),
        hashing_(!body.cached_fingerprint()),
        hash_(body) {
    if (by_slot_) {
      slot_taken_.assign(body.names_size(), false);
    } else {
      taken_.reserve(body.size() / 2);
    }
  }
  /// A printer that hands its text to `flush` a chunk at a time.
  Printer(const Body& body, std::function<void(std::string_view)> flush) : Printer(body) { flush_ = std::move(flush); }
  Printer(const Printer&) = delete;  // its set of taken names points back at it
  Printer& operator=(const Printer&) = delete;

  std::string function(const Function& fn) {
    std::string out;
    function(fn, out);
    return out;
  }
  /// Appends the function to `out`.
  void function(const Function& fn, std::string& text) {
    TextOut out(text);
    out_ = &out;
    if (fn.exported || fn.skip_optimization) {
      out.put("#[");
      if (fn.exported) out.put("export");
      if (fn.exported && fn.skip_optimization) out.put(", ");
      if (fn.skip_optimization) out.put("noopt");
      out.put("]\n");
    }
    out.put("def @");
    out.put(fn.name);
    params(body_.params());
    if (body_.result().known()) out.put(" -> "), out.put(type_text(body_.result()));
    out.put(" {\n");
    block(body_.root(), 1);
    out.put("}\n");
    out_ = nullptr;
    if (hashing_) hash_.finish();
  }

 private:
  void params(std::span<const ExprId> ps) {
    out_->put('(');
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (i) out_->put(", ");
      out_->put('%');
      out_->put(var(ps[i]));
      if (!body_[ps[i]].type.known()) continue;  // ill-formed (the verifier says so); as the parser words it
      out_->put(": ");
      out_->put(type_text(body_[ps[i]].type));
    }
    out_->put(')');
  }

  /// Feeds the fingerprint, when computing it, with a node met (not a var).
  [[gnu::always_inline]] inline void visit(ExprId id) {
    if (hashing_) hash_.node(id, 0);
  }

  /// A var met: its printed name, its own unless another var took it first.
  /// The first time, it is numbered (for the fingerprint) and named. Own
  /// names are views of the body's names; only renamed ones are stored.
  [[gnu::always_inline]] inline std::string_view var(ExprId id) {
    std::uint32_t state = vars_[id];
    if (state == 0) [[unlikely]] state = meet(id);
    if (hashing_) hash_.var(id, (state & ~renamed) - 1);
    if (!(state & renamed)) [[likely]] return body_.name(id);
    return renamed_[renamed_index_.at(id)];
  }
  /// Numbers and names a var met for the first time; its state.
  std::uint32_t meet(ExprId id) {
    const bool own = first_name(id);
    vars_[id] = ++met_ | (own ? 0 : renamed);
    return vars_[id];
  }
  /// Names a var met for the first time: true if it keeps its own name.
  bool first_name(ExprId var) {
    const std::string_view own_name = body_.name(var);
    if (by_slot_ && !own_name.empty()) {
      // Distinct names: only a var of the same name slot can have taken it.
      const std::uint32_t slot = body_[var].a;
      if (!slot_taken_[slot]) {
        slot_taken_[slot] = true;
        return true;
      }
    }
    if (by_slot_) compare_names();
    if (!own_name.empty() && taken_.insert(var).second) return true;
    const std::string_view base = own_name.empty() ? std::string_view("v") : own_name;
    std::string candidate(base);
    // Suffixes below the last one given to this base are taken (names are
    // never given back): a thousand vars of one name cost a thousand tries, not half a million.
    std::size_t& next = next_suffix_[base];
    for (std::size_t n = std::max<std::size_t>(next, 1); taken_.contains(std::string_view(candidate)); ++n) {
      candidate = fmt::format("{}_{}", base, n);
      next = n + 1;
    }
    renamed_.push_back(std::move(candidate));
    taken_.insert(renamed_key | static_cast<std::uint32_t>(renamed_.size() - 1));
    renamed_index_.emplace(var, static_cast<std::uint32_t>(renamed_.size() - 1));
    return false;
  }

  /// From here on, names are compared as text: the set of names taken gets
  /// those of the vars named so far.
  void compare_names() {
    by_slot_ = false;
    taken_.reserve(body_.size() / 2);
    for (ExprId v = 0; v < vars_.size(); ++v) {
      if (vars_[v] != 0 && !(vars_[v] & renamed)) taken_.insert(v);
    }
  }

  /// The set of names taken holds keys, not strings: a var's own name is its
  /// node (4 bytes, so the set of a large function stays in cache), a renamed
  /// one its index in `renamed_`; both hash and compare as text.
  static constexpr std::uint32_t renamed_key = 0x80000000u;
  struct TakenText {
    const Printer* printer;
    std::string_view operator()(std::string_view text) const { return text; }
    std::string_view operator()(std::uint32_t key) const {
      return key & renamed_key ? std::string_view(printer->renamed_[key & ~renamed_key]) : printer->body_.name(key);
    }
  };
  struct TakenHash {
    using is_transparent = void;
    using is_avalanching = void;  // boost::hash of a string is: the set needs no mixing of its own
    TakenText text;
    std::size_t operator()(const auto& key) const { return boost::hash<std::string_view>()(text(key)); }
  };
  struct TakenEqual {
    using is_transparent = void;
    TakenText text;
    bool operator()(const auto& a, const auto& b) const { return text(a) == text(b); }
  };

  /// A type as written, printed once per type.
  std::string_view type_text(Type t) {
    if (t == last_type_) return last_type_text_;  // lets in a row mostly have one type
    auto [it, inserted] = type_texts_.try_emplace(t.id);
    if (inserted) it->second = TypeTable::global().print(t);
    last_type_ = t;
    last_type_text_ = it->second;
    return last_type_text_;
  }

  /// An expression in statement position: lets one per line, then the result.
  void block(ExprId id, std::size_t depth) {
    TextOut& out = *out_;
    while (body_[id].kind == Kind::let) {
      const Node& let = body_[id];
      visit(id);
      const std::string_view name = var(let.a);
      const Type type = body_[let.a].type;
      const std::string_view type_name = type.known() ? type_text(type) : std::string_view();
      if (!operator_line(depth, name, type_name, let.b)) {
        out.spaces(depth * 2);
        out.put("let %");
        out.put(name);
        if (type.known()) out.put(": "), out.put(type_name);
        out.put(" = ");
        expr(let.b, depth);
        out.put(";\n");
      }
      id = let.c;
      if (flush_ && out.size() >= chunk) {
        flush_(out.text());
        out.clear();
      }
    }
    out.spaces(depth * 2);
    expr(id, depth);
    out.put('\n');
  }

  /// The commonest lines, `let %x: T = op(%a, 1);` (an operator on vars and
  /// integers) and `let %x: T = 1;` (or `= %a`), written in one go; false
  /// (and nothing done) for another.
  bool operator_line(std::size_t depth, std::string_view name, std::string_view type_name, ExprId value) {
    const Node& v = body_[value];
    const bool op = v.kind == Kind::op;
    if (!op && v.kind != Kind::var && v.kind != Kind::int_const) return false;
    const ExprId operands[3] = {op ? v.a : value, v.b, v.c};
    const std::size_t count = !op ? 1 : v.c != no_expr ? 3 : v.b != no_expr ? 2 : 1;
    for (std::size_t i = 0; op && i < count; ++i) {
      const Kind k = body_[operands[i]].kind;
      if (k != Kind::var && k != Kind::int_const) return false;
    }
    if (op) visit(value);
    std::string_view texts[3];
    char digits[3][TextOut::max_decimal];
    bool is_var[3] = {};
    std::size_t length = depth * 2 + 5 + name.size() + (type_name.empty() ? 0 : 2 + type_name.size()) + 3 +
                         (op ? op_name(v.op).size() + 2 : 0) + 2 * (count - 1) + 2;
    for (std::size_t i = 0; i < count; ++i) {
      if (body_[operands[i]].kind == Kind::var) {
        is_var[i] = true;
        texts[i] = var(operands[i]);
        ++length;
      } else {
        visit(operands[i]);
        const char* end = TextOut::decimal(digits[i], body_.int_value(operands[i]));
        texts[i] = std::string_view(digits[i], static_cast<std::size_t>(end - digits[i]));
      }
      length += texts[i].size();
    }
    char* p = out_->room(length);
    std::memset(p, ' ', depth * 2);
    p += depth * 2;
    p = TextOut::write(p, "let %");
    p = TextOut::write(p, name);
    if (!type_name.empty()) p = TextOut::write(TextOut::write(p, ": "), type_name);
    p = TextOut::write(p, " = ");
    if (op) p = TextOut::write(TextOut::write(p, op_name(v.op)), "(");
    for (std::size_t i = 0; i < count; ++i) {
      if (i) p = TextOut::write(p, ", ");
      if (is_var[i]) *p++ = '%';
      p = TextOut::write(p, texts[i]);
    }
    if (op) *p++ = ')';
    p = TextOut::write(p, ";\n");
    out_->commit(p);
    return true;
  }

  void expr(ExprId id, std::size_t depth) {
    // The verifier accepts no body that nests deeper, and the parser reads
    // none: an unverified one that does is an error, not a stack overflow.
    struct Nested {
      std::size_t& level;
      explicit Nested(std::size_t& l) : level(l) {
        if (++level > max_recursion) {
          --level;
          throw IRError(fmt::format("cannot print an expression nested more than {} deep", max_nesting));
        }
      }
      ~Nested() { --level; }
    } nested(recursion_);
    TextOut& out = *out_;
    const Node& n = body_[id];
    if (n.kind != Kind::var && n.kind != Kind::let) visit(id);  // var() meets a var, block() a let
    switch (n.kind) {
      case Kind::var: out.put('%'), out.put(var(id)); return;
      case Kind::int_const: out.integer(body_.int_value(id)); return;
      case Kind::float_const: out.put(float_text(body_.float_value(id))); return;
      case Kind::bool_const: out.put(body_.bool_value(id) ? "true" : "false"); return;
      case Kind::global: out.put('@'), out.put(body_.name(id)); return;
      case Kind::op:
        out.put(op_name(n.op));
        out.put('(');
        expr(n.a, depth);
        if (n.b != no_expr) out.put(", "), expr(n.b, depth);
        if (n.c != no_expr) out.put(", "), expr(n.c, depth);
        out.put(')');
        return;
      case Kind::call: {
        applied(n.a, depth);
        list(body_.args(id), depth, false);
        return;
      }
      case Kind::tuple: list(body_.elements(id), depth, body_.elements(id).size() == 1); return;
      case Kind::proj: {
        applied(n.a, depth);
        out.put('.');
        out.integer(n.b);
        return;
      }
      case Kind::if_:
        out.put("if ");
        expr(n.a, depth);
        out.put(" {\n");
        block(n.b, depth + 1);
        out.spaces(depth * 2);
        out.put("} else {\n");
        block(n.c, depth + 1);
        out.spaces(depth * 2);
        out.put('}');
        return;
      case Kind::let:
        out.put("(\n");  // a let in operand position: a parenthesized block
        block(id, depth + 1);
        out.spaces(depth * 2);
        out.put(')');
        return;
      case Kind::fn: {
        out.put("fn");
        params(body_.fn_params(id));
        if (n.type.known()) out.put(" -> "), out.put(type_text(TypeTable::global().result(n.type)));
        out.put(" {\n");
        block(n.c, depth + 1);
        out.spaces(depth * 2);
        out.put('}');
        return;
      }
    }
  }

  /// What a call or a projection applies to; a block-shaped one in
  /// parentheses (a `let` brings its own), and so is a number, whose
  /// projection would read as a float (`(7).1`, not `7.1`).
  void applied(ExprId id, std::size_t depth) {
    const Kind kind = body_[id].kind;
    const bool wrap = kind == Kind::fn || kind == Kind::if_ || kind == Kind::int_const || kind == Kind::float_const;
    if (wrap) out_->put('(');
    expr(id, depth);
    if (wrap) out_->put(')');
  }

  void list(std::span<const ExprId> items, std::size_t depth, bool trailing_comma) {
    out_->put('(');
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i) out_->put(", ");
      expr(items[i], depth);
    }
    if (trailing_comma) out_->put(',');
    out_->put(')');
  }

  static std::string float_text(double value) {
    if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    std::string text = fmt::format("{}", value);
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return text;
  }

  static constexpr std::size_t chunk = std::size_t{1} << 20;
  std::function<void(std::string_view)> flush_;
  const Body& body_;
  std::size_t recursion_ = 0;  // how deep expr() is in itself
  TextOut* out_ = nullptr;
  /// Per var: 0 until met, then the order met (from 1), with `renamed` set
  /// if it does not keep its own name.
  static constexpr std::uint32_t renamed = 0x80000000u;
  std::vector<std::uint32_t> vars_;
  std::uint32_t met_ = 0;
  boost::unordered_flat_map<ExprId, std::uint32_t> renamed_index_;  // var -> its name in renamed_
  std::deque<std::string> renamed_;
  boost::unordered_flat_map<std::string_view, std::size_t> next_suffix_;  // base name -> first suffix worth trying
  boost::unordered_flat_set<std::uint32_t, TakenHash, TakenEqual> taken_;
  bool by_slot_;                  // while the names taken are told by their slots alone
  std::vector<bool> slot_taken_;  // per name slot, while by_slot_
  boost::unordered_flat_map<std::uint32_t, std::string> type_texts_;
  Type last_type_ = {};
  std::string_view last_type_text_;
  bool hashing_;
  Fingerprinter hash_;
};

}  // namespace passline::ir::detail

namespace passline::ir::detail {

/// Below this, a parse or print is one thread's work.
constexpr std::size_t parallel_bytes = std::size_t{1} << 16;
constexpr std::size_t print_batch_nodes = std::size_t{1} << 15;
/// Pieces of text a parse cuts per thread: enough that the threads finish
/// at about the same time, a fraction of a piece apart.
constexpr std::size_t pieces_per_thread = 16;
/// About what a node takes in text.
constexpr std::size_t text_bytes_per_node = 16;

/// Appends functions [first, last) of `module`, of `nodes` nodes in all, to
/// `text`, each after a blank line but the module's first; room for them
/// is made once, not in a dozen regrowths.
inline void print_functions(const Module& module, std::size_t first, std::size_t last, std::size_t nodes,
                            std::string& text) {
  text.reserve(text.size() + nodes * text_bytes_per_node);
  for (std::size_t i = first; i < last; ++i) {
    if (i) text += '\n';
    Printer(*module.functions[i].body).function(module.functions[i], text);
  }
}

/// Where the text may be cut into pieces of whole functions, about
/// `pieces` of them of about the same length: the offsets, from 0 to the
/// end, where a piece begins. A piece begins at a line that starts with
/// `def` or `#[` right after a `}` (and spaces): where a top-level function
/// begins in text that parses, since neither can start a line inside a
/// body. Finding them reads only the text around each place aimed at, not
/// the whole. Text that does not parse may be cut elsewhere; then a piece
/// fails to parse, and the parse starts over on one thread.
inline std::vector<std::size_t> piece_cuts(std::string_view text, std::size_t pieces) {
  std::vector<std::size_t> cuts{0};
  auto begins_function = [&](std::size_t at) {
    const std::string_view line = text.substr(at);
    const bool def = line.starts_with("def") && (line.size() == 3 || !is_name_char(line[3]));
    if (!def && !line.starts_with("#[")) return false;
    std::size_t before = at;
    while (before > 0 && is_space(text[before - 1])) --before;
    return before > 0 && text[before - 1] == '}';
  };
  std::size_t from = 0;  // no cut before this: the search reached it already
  for (std::size_t i = 1; i < pieces; ++i) {
    std::size_t at = std::max(from, text.size() / pieces * i);
    while ((at = text.find('\n', at)) != std::string_view::npos && !begins_function(++at)) {
    }
    if (at == std::string_view::npos) break;  // no function begins further on
    cuts.push_back(at);
    from = at + 1;
  }
  cuts.push_back(text.size());
  return cuts;
}

/// Parses `source` on up to `threads` threads: the text cut into pieces of
/// whole functions, the pieces parsed at once, the functions joined in
/// order. Should any piece fail, or a name be defined twice, the one-thread
/// parser parses it all again, and its error, the first in file order, is
/// the error: the same message at the same place on any number of threads.
inline Module parse_source(const std::shared_ptr<const Source>& source, std::size_t threads) {
  const std::string_view text = source->text();
  if (threads > 1 && text.size() >= parallel_bytes) {
    const std::vector<std::size_t> cuts = piece_cuts(text, threads * pieces_per_thread);
    if (cuts.size() > 2) {
      std::vector<std::vector<Function>> pieces(cuts.size() - 1);
      bool failed = false;
      try {
        passline::parallel_for(pieces.size(), threads, [&](std::size_t i) {
          pieces[i] = Parser(source, cuts[i], cuts[i + 1]).parse_functions();
        });
      } catch (...) {
        failed = true;  // the one-thread parse below tells what
      }
      if (!failed) {
        Module module;
        module.source = source;
        std::size_t count = 0;
        for (const auto& piece : pieces) count += piece.size();
        module.functions.reserve(count);
        for (auto& piece : pieces) std::ranges::move(piece, std::back_inserter(module.functions));
        std::unordered_set<std::string_view> names;
        bool twice = false;
        for (const Function& fn : module.functions) twice = twice || !names.insert(fn.name).second;
        if (!twice) {
          source->check_intact();
          return module;
        }
      }
    }
  }
  return Parser(source).parse_module();
}

}  // namespace passline::ir::detail

export namespace passline::ir {

/// Parses a module; `name` is the file name that error messages show.
/// Throws IRError at the first malformed spot.
/// With `threads` > 1, the functions of a large module are parsed on that
/// many threads: the same module, and the same error, as on one.
Module parse(std::string text, std::string name = "<input>", std::size_t threads = 1) {
  auto source = std::make_shared<const Source>(std::move(name), std::move(text));
  return detail::parse_source(source, threads);
}

/// Parses a type as the text format writes it (`i64`, `(i64, bool)`,
/// `fn(i64) -> i64`); throws IRError, in a source named `name`, if it is not one.
Type parse_type(std::string text, std::string name = "<type>") {
  auto source = std::make_shared<const Source>(std::move(name), std::move(text));
  return detail::Parser(source).parse_whole_type();
}

/// Parses the file at `path` (mapped, not read: see Source::open); `name` is
/// the file name that error messages show. Throws std::system_error when the
/// file cannot be read, and IRError at the first malformed spot.
Module parse_file(const std::string& path, std::string name, std::size_t threads = 1) {
  return detail::parse_source(Source::open(path, std::move(name)), threads);
}

/// One function in the text format.
std::string print(const Function& fn) { return detail::Printer(*fn.body).function(fn); }

/// Writes a module in the text format to `write`, a chunk at a time, so that
/// a large module is never held as one string. With `threads` > 1, batches
/// of functions are printed on that many threads into buffers of their own,
/// written in order as they are done: the same bytes as on one thread.
void print_to(const Module& module, const std::function<void(std::string_view)>& write, std::size_t threads = 1) {
  const std::size_t count = module.functions.size();
  if (threads <= 1 || count < 2) {
    for (std::size_t i = 0; i < count; ++i) {
      if (i) write("\n");
      std::string rest = detail::Printer(*module.functions[i].body, write).function(module.functions[i]);
      write(rest);
    }
    return;
  }
  struct Batch {
    std::size_t first = 0, last = 0;  // functions [first, last)
    std::size_t nodes = 0;
  };
  // Texts written, whose room the next batches fill again: a batch's text
  // is then written where pages are already the process's, not in fresh
  // ones the kernel must fault in and clear (and a growing string copy).
  tbb::concurrent_queue<std::string> spare;
  std::size_t next = 0;
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute([&] {
    tbb::parallel_pipeline(
        threads * 2,
        tbb::make_filter<void, Batch>(tbb::filter_mode::serial_in_order,
                                      [&](tbb::flow_control& control) -> Batch {
                                        if (next == count) {
                                          control.stop();
                                          return {};
                                        }
                                        Batch batch{next, next, 0};
                                        while (batch.last < count &&
                                               (batch.last == batch.first || batch.nodes < detail::print_batch_nodes)) {
                                          batch.nodes += module.functions[batch.last++].body->size();
                                        }
                                        next = batch.last;
                                        return batch;
                                      }) &
            tbb::make_filter<Batch, std::string>(tbb::filter_mode::parallel,
                                                 [&](Batch batch) {
                                                   std::string text;
                                                   if (spare.try_pop(text)) text.clear();
                                                   detail::print_functions(module, batch.first, batch.last, batch.nodes, text);
                                                   return text;
                                                 }) &
            tbb::make_filter<std::string, void>(tbb::filter_mode::serial_in_order, [&](std::string text) {
              write(text);
              spare.push(std::move(text));
            }));
  });
}

/// A module in the text format in `out`, which it replaces, reusing its room.
void print(const Module& module, std::string& out) {
  std::size_t nodes = 0;
  for (const Function& fn : module.functions) nodes += fn.body->size();
  out.clear();
  detail::print_functions(module, 0, module.functions.size(), nodes, out);
}

/// A module in the text format, functions separated by a blank line.
std::string print(const Module& module) {
  std::string out;
  print(module, out);
  return out;
}

}  // namespace passline::ir
