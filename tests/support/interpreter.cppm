// passline.testing.interpreter: the meaning of a reference-IR program, apart
// from the passes, to test them against.
//
// A small evaluator of well-typed modules (InferType accepted them), written
// here independently of every pass, so that a pass that changes what a
// program computes is caught by comparing results before and after: the
// property tests and the optimisation fuzz target both use it. Integers wrap,
// `div` and `mod` by zero trap, and a run has a budget of nodes (fuel), so
// that recursion that never ends stops.
module;
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
export module passline.testing.interpreter;
import passline.ir;

export namespace passline::testing {
/// A run evaluated more nodes than it was given.
struct OutOfFuel {};
}  // namespace passline::testing

namespace passline::testing {

namespace ir = passline::ir;

struct Trap {};

struct Value;
using Frame = std::vector<Value>;

struct Closure {
  const ir::Body* body;
  ir::ExprId fn;
  std::shared_ptr<const Frame> captured;
};

struct Value {
  enum class K : std::uint8_t { none, i, f, b, tuple, closure, global } k = K::none;
  std::int64_t i = 0;
  double f = 0;
  bool b = false;
  std::shared_ptr<std::vector<Value>> elements = nullptr;
  std::shared_ptr<Closure> closure = nullptr;
  std::string_view global = {};
};

Value integer(std::int64_t v) { return {.k = Value::K::i, .i = v}; }
Value real(double v) { return {.k = Value::K::f, .f = v}; }
Value boolean(bool v) { return {.k = Value::K::b, .b = v}; }

/// What a value looks like to the tests: NaNs are all alike (no operation can
/// tell them apart), -0.0 and 0.0 are not (1/x can).
std::string show(const Value& v) {
  switch (v.k) {
    case Value::K::i: return fmt::format("{}", v.i);
    case Value::K::f: return std::isnan(v.f) ? "nan" : fmt::format("{:#x}", std::bit_cast<std::uint64_t>(v.f));
    case Value::K::b: return v.b ? "true" : "false";
    case Value::K::tuple: {
      std::string s = "(";
      for (const Value& e : *v.elements) s += show(e) + ",";
      return s + ")";
    }
    default: return "<fn>";
  }
}

class Interpreter {
 public:
  /// `fuel`: how many nodes a run may evaluate (and so how deep it may recurse).
  explicit Interpreter(const ir::Module& module, long fuel = 1'000'000) : fuel_limit_(fuel) {
    for (const ir::Function& f : module.functions) index_.emplace(f.name, &f);
  }

  /// `@main(args)`, shown; "trap" when it traps. Throws OutOfFuel.
  std::string run(const std::vector<Value>& args) {
    fuel_ = fuel_limit_;
    try {
      return show(call_global("main", args));
    } catch (const Trap&) {
      return "trap";
    }
  }

 private:
  Value call_global(std::string_view name, const std::vector<Value>& args) {
    const ir::Body& body = *index_.at(name)->body;
    Frame frame(body.size());
    for (std::size_t p = 0; p < args.size(); ++p) frame[body.params()[p]] = args[p];
    return eval(body, body.root(), frame);
  }

  Value call(const Value& callee, const std::vector<Value>& args) {
    if (callee.k == Value::K::global) return call_global(callee.global, args);
    const Closure& c = *callee.closure;
    Frame frame = *c.captured;
    const auto params = c.body->fn_params(c.fn);
    for (std::size_t p = 0; p < args.size(); ++p) frame[params[p]] = args[p];
    return eval(*c.body, (*c.body)[c.fn].c, frame);
  }

  Value eval(const ir::Body& body, ir::ExprId id, Frame& frame) {
    if (--fuel_ < 0) throw OutOfFuel{};
    const ir::Node& n = body[id];
    using ir::Kind;
    switch (n.kind) {
      case Kind::var: return frame[id];
      case Kind::int_const: return integer(body.int_value(id));
      case Kind::float_const: return real(body.float_value(id));
      case Kind::bool_const: return boolean(body.bool_value(id));
      case Kind::global: return {.k = Value::K::global, .global = body.name(id)};
      case Kind::let:
        frame[n.a] = eval(body, n.b, frame);
        return eval(body, n.c, frame);
      case Kind::if_: return eval(body, eval(body, n.a, frame).b ? n.b : n.c, frame);
      case Kind::tuple: {
        auto elements = std::make_shared<std::vector<Value>>();
        for (ir::ExprId e : body.elements(id)) elements->push_back(eval(body, e, frame));
        return {.k = Value::K::tuple, .elements = std::move(elements)};
      }
      case Kind::proj: return (*eval(body, n.a, frame).elements)[n.b];
      case Kind::fn:
        return {.k = Value::K::closure, .closure = std::make_shared<Closure>(Closure{&body, id, std::make_shared<Frame>(frame)})};
      case Kind::call: {
        const Value callee = eval(body, n.a, frame);
        std::vector<Value> args;
        for (ir::ExprId a : body.args(id)) args.push_back(eval(body, a, frame));
        return call(callee, args);
      }
      case Kind::op: {
        std::vector<Value> v;
        for (ir::ExprId o : {n.a, n.b, n.c}) {
          if (o != ir::no_expr) v.push_back(eval(body, o, frame));
        }
        return apply(n.op, v);
      }
    }
    return {};
  }

  static Value apply(ir::Op op, const std::vector<Value>& v) {
    using ir::Op;
    const Value& x = v[0];
    auto u = [](const Value& a) { return static_cast<std::uint64_t>(a.i); };
    auto wrap = [](std::uint64_t r) { return integer(static_cast<std::int64_t>(r)); };
    const bool f = x.k == Value::K::f;
    auto compare = [&](auto cmp) {
      if (f) return boolean(cmp(x.f, v[1].f));
      if (x.k == Value::K::b) return boolean(cmp(x.b, v[1].b));
      return boolean(cmp(x.i, v[1].i));
    };
    switch (op) {
      case Op::add: return f ? real(x.f + v[1].f) : wrap(u(x) + u(v[1]));
      case Op::sub: return f ? real(x.f - v[1].f) : wrap(u(x) - u(v[1]));
      case Op::mul: return f ? real(x.f * v[1].f) : wrap(u(x) * u(v[1]));
      case Op::div:
      case Op::mod:
        if (f) return real(x.f / v[1].f);
        if (v[1].i == 0 || (v[1].i == -1 && x.i == std::numeric_limits<std::int64_t>::min())) throw Trap{};
        return integer(op == Op::div ? x.i / v[1].i : x.i % v[1].i);
      case Op::neg: return f ? real(-x.f) : wrap(0 - u(x));
      case Op::eq: return compare([](auto a, auto b) { return a == b; });
      case Op::ne: return compare([](auto a, auto b) { return a != b; });
      case Op::lt: return compare([](auto a, auto b) { return a < b; });
      case Op::le: return compare([](auto a, auto b) { return a <= b; });
      case Op::gt: return compare([](auto a, auto b) { return a > b; });
      case Op::ge: return compare([](auto a, auto b) { return a >= b; });
      case Op::and_: return boolean(x.b && v[1].b);
      case Op::or_: return boolean(x.b || v[1].b);
      case Op::not_: return boolean(!x.b);
      case Op::select: return x.b ? v[1] : v[2];
    }
    return {};
  }

  std::unordered_map<std::string_view, const ir::Function*> index_;
  long fuel_limit_;
  long fuel_ = 0;
};


}  // namespace passline::testing

export namespace passline::testing {

/// The results of `@main` on a few inputs chosen by its parameters' types
/// (i64, f64 and bool each get edge values), in one string; empty when
/// `@main` is missing or takes another type. Throws OutOfFuel when a run
/// evaluates more than `fuel` nodes.
std::string results(const ir::Module& module, long fuel = 1'000'000) {
  const std::ptrdiff_t main = module.find("main");
  if (main < 0) return "";
  const ir::Body& body = *module.functions[static_cast<std::size_t>(main)].body;
  static const Value ints[] = {integer(0), integer(7), integer(std::numeric_limits<std::int64_t>::min()), integer(-3)};
  static const Value reals[] = {real(0.0), real(-2.5), real(-0.0), real(std::numeric_limits<double>::infinity())};
  static const Value bools[] = {boolean(false), boolean(true), boolean(true), boolean(false)};
  Interpreter interpreter(module, fuel);
  std::string all;
  for (std::size_t k = 0; k < 4; ++k) {
    std::vector<Value> args;
    for (ir::ExprId p : body.params()) {
      const ir::Type t = body[p].type;
      if (t == ir::types::i64) {
        args.push_back(ints[k]);
      } else if (t == ir::types::f64) {
        args.push_back(reals[k]);
      } else if (t == ir::types::boolean) {
        args.push_back(bools[k]);
      } else {
        return "";
      }
    }
    all += interpreter.run(args) + " | ";
  }
  return all;
}

}  // namespace passline::testing
