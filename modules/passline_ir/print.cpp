// The reference IR's printer (declared in text.cppm): one `let` per line, a
// variable renamed only when its name is taken, and a large module printed
// on several threads in the same bytes as on one.
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
module passline.ir;

namespace passline::ir::detail {

/// A batch a print on several threads hands one thread: functions of about this many nodes.
constexpr std::size_t print_batch_nodes = std::size_t{1} << 15;
/// About what a node takes in text.
constexpr std::size_t text_bytes_per_node = 16;

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

}  // namespace passline::ir::detail

namespace passline::ir {

void print_to(const Module& module, const std::function<void(std::string_view)>& write, std::size_t threads) {
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

void print(const Module& module, std::string& out) {
  std::size_t nodes = 0;
  for (const Function& fn : module.functions) nodes += fn.body->size();
  out.clear();
  detail::print_functions(module, 0, module.functions.size(), nodes, out);
}

std::string print(const Module& module) {
  std::string out;
  print(module, out);
  return out;
}

std::string print(const Function& fn) { return detail::Printer(*fn.body).function(fn); }

}  // namespace passline::ir
