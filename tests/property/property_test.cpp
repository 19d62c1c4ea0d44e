// Every pass and pipeline keeps the meaning of random well-typed programs.
//
// A small interpreter, written here apart from the passes, evaluates
// `@main` of each generated program on a few inputs before and after each
// pass (and each standard pipeline, and random pipelines of several passes);
// the results must be the same, traps included. The output must also verify,
// and evaluate the same once printed and parsed again. Half the runs hand the
// pipeline a module of its own, rewritten in place; the others a shared one,
// which must be left as it was. The run is seeded: set
// PASSLINE_PROPERTY_SEED to replay one, PASSLINE_PROPERTY_COUNT to change how
// many programs run.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "generator.hpp"
import passline;
import passline.ir;
import passline.ir.passes;
import passline.pipelines;

namespace {

namespace ir = passline::ir;

struct Trap {};
struct OutOfFuel {};

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
  explicit Interpreter(const ir::Module& module) {
    for (const ir::Function& f : module.functions) index_.emplace(f.name, &f);
  }

  /// `@main(args)`, shown; "trap" when it traps.
  std::string run(const std::vector<Value>& args) {
    fuel_ = 1'000'000;
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
  long fuel_ = 0;
};

std::uint64_t from_env(const char* name, std::uint64_t otherwise) {
  const char* text = std::getenv(name);
  return text ? std::strtoull(text, nullptr, 10) : otherwise;
}

/// The results of `@main` on a few inputs, in one string.
std::string results(const ir::Module& module) {
  static const std::vector<std::vector<Value>> inputs = {
      {integer(0), real(0.0), boolean(false)},
      {integer(7), real(-2.5), boolean(true)},
      {integer(std::numeric_limits<std::int64_t>::min()), real(-0.0), boolean(true)},
      {integer(-3), real(std::numeric_limits<double>::infinity()), boolean(false)},
  };
  Interpreter interpreter(module);
  std::string all;
  for (const auto& args : inputs) all += interpreter.run(args) + " | ";
  return all;
}

TEST(Property, EveryPassAndPipelineKeepsWhatProgramsCompute) {
  const std::uint64_t seed = from_env("PASSLINE_PROPERTY_SEED", std::random_device{}());
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 1000);
  const auto& registry = passline::pipelines::registry();
  std::vector<std::string> pipelines;
  for (std::string_view name : registry.names()) pipelines.emplace_back(name);
  std::mt19937_64 pick(seed);
  std::vector<std::string> passes;
  for (const auto& entry : registry.list()) {
    if (!entry.pipeline) passes.push_back(entry.name);
  }

  std::uint64_t checked = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t program_seed = seed + i;
    const std::string text = passline::testing::random_program(program_seed);
    const std::string where = fmt::format("seed {} (PASSLINE_PROPERTY_SEED={} PASSLINE_PROPERTY_COUNT=1)\n{}",
                                          program_seed, program_seed, text);
    ir::Module module;
    try {
      module = ir::parse(text, "random.ir");
      ir::verify(module);
    } catch (const std::exception& e) {
      FAIL() << "the generator wrote a bad program: " << e.what() << "\n" << where;
    }
    const std::string expected = results(module);
    const std::string input_text = ir::print(module);
    // Each pipeline alone, then a random sequence of five passes.
    std::vector<std::string> runs = pipelines;
    std::string random;
    for (int k = 0; k < 5; ++k) random += (k ? "," : "") + passes[pick() % passes.size()];
    runs.push_back(random);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const std::string& pipeline_text = runs[r];
      passline::PassContext ctx;
      ctx.opt_level = 3;
      ir::Module out;
      // Every other run gets a module of its own, which passes rewrite in
      // place; the others share `module`, which must come out as it went in.
      const bool owned = (i + r) % 2 == 0;
      try {
        out = passline::parse_pipeline(pipeline_text, registry)(owned ? ir::parse(text, "random.ir") : module, ctx);
        ir::verify(out);
      } catch (const std::exception& e) {
        FAIL() << "'" << pipeline_text << "' failed: " << e.what() << "\n" << where;
      }
      const std::string printed = ir::print(out);
      ASSERT_EQ(results(out), expected) << "'" << pipeline_text << "' changed the results of\n" << where << "into\n" << printed;
      ASSERT_EQ(results(ir::parse(printed, "printed.ir")), expected)
          << "the output of '" << pipeline_text << "' reads back differently\n" << where << "output\n" << printed;
      ++checked;
    }
    ASSERT_EQ(ir::print(module), input_text) << "a pipeline changed the module it was given a copy of\n" << where;
  }
  RecordProperty("seed", std::to_string(seed));
  std::printf("checked %llu programs x pipelines (seed %llu)\n", static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(seed));
}

/// The fingerprint that a print computes on the way for a body, and the
/// one that a walk computes, agree: on random programs, and on what the O3
/// pipeline makes of them (other shapes: lifted functions, fewer lets).
TEST(Property, APrintFingerprintsAsTheWalkDoes) {
  const std::uint64_t seed = from_env("PASSLINE_PROPERTY_SEED", std::random_device{}());
  const std::uint64_t count = from_env("PASSLINE_PROPERTY_COUNT", 1000) / 4;
  const passline::Pass<ir::Module> o3 = passline::parse_pipeline("O3", passline::pipelines::registry());
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t program_seed = seed + i;
    const std::string text = passline::testing::random_program(program_seed);
    passline::PassContext ctx;
    ctx.opt_level = 3;
    for (const std::string& program : {text, ir::print(o3(ir::parse(text, "random.ir"), ctx))}) {
      const ir::Module printed = ir::parse(program, "random.ir");
      const ir::Module walked = ir::parse(program, "random.ir");
      (void)ir::print(printed);
      for (std::size_t f = 0; f < printed.functions.size(); ++f) {
        ASSERT_EQ(printed.functions[f].body->cached_fingerprint(), walked.functions[f].body->fingerprint())
            << "@" << printed.functions[f].name << " of seed " << program_seed << " (PASSLINE_PROPERTY_SEED="
            << program_seed << " PASSLINE_PROPERTY_COUNT=4)\n"
            << program;
      }
    }
  }
}

}  // namespace
