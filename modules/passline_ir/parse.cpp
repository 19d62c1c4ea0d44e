// The reference IR's parser (declared in text.cppm): a lexer and a recursive
// descent, and the parse of a large module on several threads.
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
module passline.ir;
import passline.support;

namespace passline::ir::detail {

/// Below this, a parse is one thread's work.
constexpr std::size_t parallel_bytes = std::size_t{1} << 16;
/// Pieces of text a parse cuts per thread: enough that the threads finish
/// at about the same time, a fraction of a piece apart.
constexpr std::size_t pieces_per_thread = 16;

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
        error(fn.loc + 4, fmt::format("function '@{}' is defined twice (first at line {})", support::printable(fn.name),
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
    return fmt::format("'{}'", support::printable(spelling()));
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
    error(start_, fmt::format("unexpected character '{}'", support::printable(support::first_character(text_.substr(pos_)))));
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
      error(static_cast<std::uint32_t>(pos_), fmt::format("unexpected '{}' after a number", support::printable(support::first_character(text_.substr(pos_)))));
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
    if (token_ == Token::ident) error(at, fmt::format("unknown type '{}' (types: i64, f64, bool, (T, ...), fn(T, ...) -> T)", support::printable(spelling())));
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
          error(start_, fmt::format("unknown attribute '{}' (attributes: export, noopt)", support::printable(spelling())));
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
        if (builder_.name(p) == name) error(at, fmt::format("parameter '%{}' is declared twice", support::printable(name)));
      }
      advance();
      if (token_ != Token::colon) error(start_, fmt::format("parameter '%{}' needs a type: '%{}: i64'", support::printable(name), support::printable(name)));
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
    if (ec != std::errc()) error(start_, fmt::format("tuple index '{}' is too large", support::printable(digits)));
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
        if (var == no_expr) error(loc, fmt::format("unknown variable '%{}'", support::printable(name)));
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
        if (ec != std::errc()) error(loc, fmt::format("integer '{}' does not fit in i64", support::printable(digits)));
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
    if (!op) error(loc, fmt::format("unknown operator '{}'{}", support::printable(name), suggestion(name)));
    advance();
    if (token_ != Token::lparen) error(start_, fmt::format("expected '(' after operator '{}'", support::printable(name)));
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
    return support::did_you_mean(name, names);
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
      if (ec != std::errc()) error(start_, fmt::format("float '{}' is out of range", support::printable(text)));
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
        passline::support::parallel_for(pieces.size(), threads, [&](std::size_t i) {
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

namespace passline::ir {

Module parse(std::string text, std::string name, std::size_t threads) {
  auto source = std::make_shared<const Source>(std::move(name), std::move(text));
  return detail::parse_source(source, threads);
}

Type parse_type(std::string text, std::string name) {
  auto source = std::make_shared<const Source>(std::move(name), std::move(text));
  return detail::Parser(source).parse_whole_type();
}

Module parse_file(const std::string& path, std::string name, std::size_t threads) {
  return detail::parse_source(Source::open(path, std::move(name)), threads);
}

}  // namespace passline::ir
