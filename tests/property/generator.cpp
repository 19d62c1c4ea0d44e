#include "generator.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace passline::testing {
namespace {

enum class T { i64, f64, boolean, pair };  // pair: (i64, f64)

struct Var {
  std::string name;
  T type;
};

struct Global {
  std::string name;
  std::vector<T> params;
  T result;
};

const char* spell(T t) {
  switch (t) {
    case T::i64: return "i64";
    case T::f64: return "f64";
    case T::boolean: return "bool";
    case T::pair: return "(i64, f64)";
  }
  return "";
}

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  std::string program() {
    const int helpers = pick(0, 3);
    // Globals are written callee-last: @g3 may call nothing, @g2 may call @g3, ...
    for (int i = helpers; i >= 1; --i) {
      Global g{fmt::format("@g{}", i), {}, any_scalar()};
      const int arity = pick(1, 3);
      for (int p = 0; p < arity; ++p) g.params.push_back(pick(0, 3) == 0 ? T::pair : any_scalar());
      globals_.insert(globals_.begin(), g);
    }
    std::string text;
    for (std::size_t i = 0; i < globals_.size(); ++i) {
      callable_from_ = i + 1;
      std::vector<Var> env;
      std::string params;
      for (std::size_t p = 0; p < globals_[i].params.size(); ++p) {
        env.push_back({fmt::format("%p{}", p), globals_[i].params[p]});
        params += fmt::format("{}{}: {}", p ? ", " : "", env.back().name, spell(env.back().type));
      }
      text += fmt::format("def {}({}) -> {} {{\n  {}\n}}\n\n", globals_[i].name, params, spell(globals_[i].result),
                          expr(globals_[i].result, 4, env));
    }
    callable_from_ = 0;
    std::vector<Var> env{{"%a", T::i64}, {"%b", T::f64}, {"%c", T::boolean}};
    const T result = pick(0, 2) == 0 ? T::pair : any_scalar();
    text += fmt::format("#[export]\ndef @main(%a: i64, %b: f64, %c: bool) -> {} {{\n  {}\n}}\n", spell(result),
                        expr(result, 5, env));
    return text;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  T any_scalar() { return static_cast<T>(pick(0, 2)); }

  std::string fresh() { return fmt::format("%v{}", next_++); }

  std::string int_const() {
    static constexpr std::int64_t special[] = {0, 1, -1, 2, 7, std::numeric_limits<std::int64_t>::max(),
                                               std::numeric_limits<std::int64_t>::min()};
    if (pick(0, 2) == 0) return fmt::format("{}", special[pick(0, 6)]);
    return fmt::format("{}", pick(-100, 100));
  }

  std::string float_const() {
    switch (pick(0, 7)) {
      case 0: return "0.0";
      case 1: return "-0.0";
      case 2: return "1.0";
      case 3: return pick(0, 1) ? "inf" : "nan";
      default: {
        std::string s = fmt::format("{}", pick(-1000, 1000) / 8.0);
        if (s.find_first_of(".e") == std::string::npos) s += ".0";
        return s;
      }
    }
  }

  std::string leaf(T t, const std::vector<Var>& env) {
    std::vector<const Var*> vars;
    for (const Var& v : env) {
      if (v.type == t) vars.push_back(&v);
    }
    if (!vars.empty() && pick(0, 2) != 0) return vars[static_cast<std::size_t>(pick(0, static_cast<int>(vars.size()) - 1))]->name;
    switch (t) {
      case T::i64: return int_const();
      case T::f64: return float_const();
      case T::boolean: return pick(0, 1) ? "true" : "false";
      case T::pair: return fmt::format("({}, {})", int_const(), float_const());
    }
    return "";
  }

  std::string expr(T t, int depth, std::vector<Var>& env) {
    if (depth <= 0) return leaf(t, env);
    const int d = depth - 1;
    switch (pick(0, 11)) {
      case 0: return leaf(t, env);
      case 1:
      case 2: {  // let, sometimes unused, sometimes repeating an expression
        const T vt = pick(0, 4) == 0 ? T::pair : any_scalar();
        const std::string value = expr(vt, d, env);
        const std::string name = fresh();
        std::string text = fmt::format("(let {} = {};\n  ", name, value);
        if (pick(0, 2) == 0) text += fmt::format("let {} = {};\n  ", fresh(), value);  // the same value again
        env.push_back({name, vt});
        text += expr(t, d, env) + ")";
        env.pop_back();
        return text;
      }
      case 3: {
        std::string cond = expr(T::boolean, d, env);
        std::string then = expr(t, d, env);
        std::string otherwise = expr(t, d, env);
        return fmt::format("(if {} {{ {} }} else {{ {} }})", cond, then, otherwise);
      }
      case 4: {  // a projection
        if (t == T::i64) return fmt::format("{}.0", expr(T::pair, d, env));
        if (t == T::f64) return fmt::format("{}.1", expr(T::pair, d, env));
        break;
      }
      case 5: {  // a call of a later global
        std::vector<std::size_t> callees;
        for (std::size_t g = callable_from_; g < globals_.size(); ++g) {
          if (globals_[g].result == t) callees.push_back(g);
        }
        if (callees.empty()) break;
        const Global& g = globals_[callees[static_cast<std::size_t>(pick(0, static_cast<int>(callees.size()) - 1))]];
        std::string args;
        for (std::size_t p = 0; p < g.params.size(); ++p) args += (p ? ", " : "") + expr(g.params[p], d, env);
        return fmt::format("{}({})", g.name, args);
      }
      case 6: {  // a closure over the environment, called
        const std::string f = fresh();
        const std::string param = fresh();
        env.push_back({param, T::i64});
        const std::string body = expr(t, d, env);
        env.pop_back();
        return fmt::format("(let {} = fn({}: i64) {{ {} }};\n  {}({}))", f, param, body, f, expr(T::i64, d, env));
      }
      default: break;
    }
    return operation(t, d, env);
  }

  std::string operation(T t, int d, std::vector<Var>& env) {
    switch (t) {
      case T::pair: return fmt::format("({}, {})", expr(T::i64, d, env), expr(T::f64, d, env));
      case T::i64: {
        static constexpr const char* ops[] = {"add", "sub", "mul", "div", "mod", "neg", "select"};
        const std::string op = ops[pick(0, 6)];
        if (op == "neg") return fmt::format("neg({})", expr(t, d, env));
        if (op == "select") return select(t, d, env);
        std::string x = expr(t, d, env);
        // Mostly safe divisors, sometimes one that traps.
        std::string y = (op == "div" || op == "mod") && pick(0, 3) != 0 ? fmt::format("{}", pick(1, 9)) : expr(t, d, env);
        return fmt::format("{}({}, {})", op, x, y);
      }
      case T::f64: {
        static constexpr const char* ops[] = {"add", "sub", "mul", "div", "neg", "select"};
        const std::string op = ops[pick(0, 5)];
        if (op == "neg") return fmt::format("neg({})", expr(t, d, env));
        if (op == "select") return select(t, d, env);
        return fmt::format("{}({}, {})", op, expr(t, d, env), expr(t, d, env));
      }
      case T::boolean: {
        static constexpr const char* ops[] = {"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "select"};
        const std::string op = ops[pick(0, 9)];
        if (op == "not") return fmt::format("not({})", expr(t, d, env));
        if (op == "select") return select(t, d, env);
        if (op == "and" || op == "or") return fmt::format("{}({}, {})", op, expr(t, d, env), expr(t, d, env));
        const T operand = pick(0, 1) ? T::i64 : T::f64;
        std::string x = expr(operand, d, env);
        return fmt::format("{}({}, {})", op, x, pick(0, 3) == 0 ? x : expr(operand, d, env));
      }
    }
    return "";
  }

  std::string select(T t, int d, std::vector<Var>& env) {
    std::string c = expr(T::boolean, d, env);
    std::string x = expr(t, d, env);
    return fmt::format("select({}, {}, {})", c, x, pick(0, 3) == 0 ? x : expr(t, d, env));
  }

  std::mt19937_64 rng_;
  std::vector<Global> globals_;
  std::size_t callable_from_ = 0;
  int next_ = 0;
};

}  // namespace

std::string random_program(std::uint64_t seed) { return Generator(seed).program(); }

}  // namespace passline::testing
