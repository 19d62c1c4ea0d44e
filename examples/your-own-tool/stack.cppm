// stack: a small IR that is not passline's, a stack machine, with what a
// tool for it needs: its text (read with positions, printed back), a
// verifier, IRTraits, four passes (one of them required by another), two
// pipelines in a registry, and ReduceTraits for --reduce. main.cpp makes
// stack-opt of it in one call (docs/your-own-ir.md, "A tool for your IR").
//
//   func @main 0 {        # a function and how many values it takes
//     push 6
//     push 7
//     mul
//     call @square        # takes 1, leaves 1
//     print               # takes 1
//     push 0
//     ret                 # leaves exactly one value
//   }
module;

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

export module stack;

import passline;
import passline.reduce;
import passline.driver;  // InputError

export namespace stack {

// [ir]
enum class Op { push, pop, dup, swap, add, sub, mul, div, call, print, ret };

struct Instr {
  Op op;
  std::int64_t value = 0;  // push
  std::string callee;      // call
  std::size_t offset = 0;  // in the text it was read from, for errors
};

struct Function {
  std::string name;
  int inputs = 0;
  std::vector<Instr> code;
};

struct Program {
  std::vector<Function> functions;
};
// [ir]

constexpr std::string_view op_names[] = {"push", "pop", "dup", "swap", "add", "sub",
                                         "mul",  "div", "call", "print", "ret"};

std::string print(const Function& fn) {
  std::string out = fmt::format("func @{} {} {{\n", fn.name, fn.inputs);
  for (const Instr& in : fn.code) {
    out += fmt::format("  {}", op_names[static_cast<int>(in.op)]);
    if (in.op == Op::push) out += fmt::format(" {}", in.value);
    if (in.op == Op::call) out += " @" + in.callee;
    out += '\n';
  }
  return out + "}\n";
}

std::string print(const Program& program) {
  std::string out;
  for (const Function& fn : program.functions) out += print(fn);
  return out;
}

/// Reads a program; throws passline::driver::InputError at the first
/// malformed token.
Program parse(const std::string& text, const std::string& file) {
  std::size_t at = 0;
  auto fail = [&](std::size_t where, std::string_view message) -> void {
    throw passline::driver::InputError(file, text, where, message);
  };
  auto skip = [&] {
    while (at < text.size()) {
      if (text[at] == '#') {
        while (at < text.size() && text[at] != '\n') ++at;
      } else if (std::isspace(static_cast<unsigned char>(text[at]))) {
        ++at;
      } else {
        break;
      }
    }
  };
  auto word = [&] {
    skip();
    const std::size_t start = at;
    while (at < text.size() && !std::isspace(static_cast<unsigned char>(text[at])) && text[at] != '#') ++at;
    return std::string_view(text).substr(start, at - start);
  };
  auto number = [&](std::string_view what) {
    skip();
    const std::size_t start = at;
    const std::string_view token = word();
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (token.empty() || error != std::errc() || end != token.data() + token.size()) {
      fail(start, fmt::format("expected {}, found '{}'", what, token));
    }
    return value;
  };
  auto name = [&] {
    skip();
    const std::size_t start = at;
    const std::string_view token = word();
    if (token.size() < 2 || token[0] != '@') fail(start, fmt::format("expected a function name '@name', found '{}'", token));
    return std::string(token.substr(1));
  };
  Program program;
  for (skip(); at < text.size(); skip()) {
    const std::size_t start = at;
    if (word() != "func") fail(start, "expected 'func'");
    Function fn{.name = name(), .inputs = static_cast<int>(number("the number of values the function takes")), .code = {}};
    skip();
    if (word() != "{") fail(at, "expected '{' after the function's inputs");
    for (;;) {
      skip();
      const std::size_t here = at;
      const std::string_view token = word();
      if (token.empty()) fail(here, fmt::format("@{} has no '}}' at its end", fn.name));
      if (token == "}") break;
      const auto* found = std::ranges::find(op_names, token);
      if (found == std::end(op_names)) fail(here, fmt::format("unknown instruction '{}'", token));
      Instr in{.op = static_cast<Op>(found - std::begin(op_names)), .value = 0, .callee = {}, .offset = here};
      if (in.op == Op::push) in.value = number("a number after 'push'");
      if (in.op == Op::call) in.callee = name();
      fn.code.push_back(std::move(in));
    }
    program.functions.push_back(std::move(fn));
  }
  return program;
}

/// How many values `op` takes from the stack and leaves on it.
std::pair<int, int> effect(const Instr& in, const std::map<std::string, int>& inputs) {
  switch (in.op) {
    case Op::push: return {0, 1};
    case Op::pop: return {1, 0};
    case Op::dup: return {1, 2};
    case Op::swap: return {2, 2};
    case Op::print: return {1, 0};
    case Op::ret: return {1, 0};
    case Op::call: return {inputs.at(in.callee), 1};
    default: return {2, 1};  // add, sub, mul, div
  }
}

/// Checks that names are defined once, calls name functions, no
/// instruction takes more than the stack holds, and each function ends in
/// its only `ret` with one value. Throws std::runtime_error naming the
/// function and instruction.
void verify(const Program& program) {
  std::map<std::string, int> inputs;
  for (const Function& fn : program.functions) {
    if (!inputs.emplace(fn.name, fn.inputs).second) throw std::runtime_error(fmt::format("@{} is defined twice", fn.name));
  }
  for (const Function& fn : program.functions) {
    int depth = fn.inputs;
    for (std::size_t i = 0; i < fn.code.size(); ++i) {
      const Instr& in = fn.code[i];
      auto broken = [&](std::string_view why) {
        return std::runtime_error(fmt::format("@{}, instruction {} ('{}'): {}", fn.name, i + 1,
                                              op_names[static_cast<int>(in.op)], why));
      };
      if (in.op == Op::call && !inputs.contains(in.callee)) throw broken(fmt::format("no function @{}", in.callee));
      const auto [takes, leaves] = effect(in, inputs);
      if (depth < takes) throw broken(fmt::format("takes {} values, the stack holds {}", takes, depth));
      if (in.op == Op::ret && (depth != 1 || i + 1 != fn.code.size())) {
        throw broken("'ret' ends a function, with exactly one value on the stack");
      }
      depth += leaves - takes;
    }
    if (fn.code.empty() || fn.code.back().op != Op::ret) throw std::runtime_error(fmt::format("@{} does not end in 'ret'", fn.name));
  }
}

}  // namespace stack

// [traits]
/// What passline needs of the IR: its functions, to run function passes on
/// them (on every thread), and its text, for instruments.
template <>
struct passline::IRTraits<stack::Program> {
  using Function = stack::Function;
  static std::size_t function_count(const stack::Program& p) { return p.functions.size(); }
  static const Function& function(const stack::Program& p, std::size_t i) { return p.functions[i]; }
  static void replace_function(stack::Program& p, std::size_t i, Function fn) { p.functions[i] = std::move(fn); }
  static bool skips_optimization(const Function&) { return false; }
  static std::string_view function_name(const Function& fn) { return fn.name; }
  static std::string print_function(const Function& fn) { return stack::print(fn); }
  static std::string print(const stack::Program& p) { return stack::print(p); }
  static std::uint64_t fingerprint(const stack::Program& p) { return std::hash<std::string>{}(stack::print(p)); }
  static bool identical(const stack::Program& a, const stack::Program& b) { return print(a) == print(b); }
};
// [traits]

export namespace stack {

// [passes]
/// Rewrites each window of `width` instructions for which `rewrite` gives a
/// replacement, left to right, again over what it wrote.
template <class Rewrite>
std::vector<Instr> rewrite_windows(std::vector<Instr> code, std::size_t width, Rewrite rewrite) {
  for (std::size_t i = 0; i + width <= code.size();) {
    std::optional<std::vector<Instr>> with = rewrite(std::span<const Instr>(code).subspan(i, width));
    if (!with) {
      ++i;
      continue;
    }
    code.erase(code.begin() + static_cast<std::ptrdiff_t>(i), code.begin() + static_cast<std::ptrdiff_t>(i + width));
    code.insert(code.begin() + static_cast<std::ptrdiff_t>(i), with->begin(), with->end());
    i = i > 0 ? i - 1 : 0;
  }
  return code;
}

Instr push(std::int64_t value, std::size_t offset) { return {.op = Op::push, .value = value, .callee = {}, .offset = offset}; }

/// Puts constants where `fold` sees them: `push a; dup` is `push a; push a`,
/// `push a; push b; swap` is `push b; push a`.
struct Canonicalize {
  static constexpr passline::PassInfo info{.name = "canon", .opt_level = 1, .summary = "constants written out"};
  Function operator()(Function fn, const Program&, passline::PassContext&) const {
    fn.code = rewrite_windows(std::move(fn.code), 2, [](std::span<const Instr> w) -> std::optional<std::vector<Instr>> {
      if (w[0].op == Op::push && w[1].op == Op::dup) return std::vector{w[0], push(w[0].value, w[1].offset)};
      return std::nullopt;
    });
    fn.code = rewrite_windows(std::move(fn.code), 3, [](std::span<const Instr> w) -> std::optional<std::vector<Instr>> {
      if (w[0].op == Op::push && w[1].op == Op::push && w[2].op == Op::swap) return std::vector{w[1], w[0]};
      return std::nullopt;
    });
    return fn;
  }
};

/// Folds arithmetic on constants: `push a; push b; add` is `push a+b`. A
/// division by a constant zero is an error of the program. Needs `canon`.
struct FoldConstants {
  static constexpr passline::PassInfo info{.name = "fold",
                                           .opt_level = 1,
                                           .required = passline::needs<"canon">,
                                           .summary = "folds arithmetic on constants"};
  Function operator()(Function fn, const Program&, passline::PassContext& ctx) const {
    std::int64_t folded = 0;
    fn.code = rewrite_windows(std::move(fn.code), 3, [&](std::span<const Instr> w) -> std::optional<std::vector<Instr>> {
      if (w[0].op != Op::push || w[1].op != Op::push) return std::nullopt;
      const std::int64_t a = w[0].value, b = w[1].value;
      std::int64_t r = 0;
      switch (w[2].op) {
        case Op::add: r = a + b; break;
        case Op::sub: r = a - b; break;
        case Op::mul: r = a * b; break;
        case Op::div:
          if (b == 0) throw std::runtime_error(fmt::format("@{}: division of {} by zero", fn.name, a));
          r = a / b;
          break;
        default: return std::nullopt;
      }
      ++folded;
      return std::vector{push(r, w[0].offset)};
    });
    ctx.statistics->add(info.name, "folded", folded);
    return fn;
  }
};

/// Drops what does nothing: `push a; pop`, `dup; pop`, `swap; swap`.
struct Peephole {
  static constexpr passline::PassInfo info{.name = "peephole", .opt_level = 1, .summary = "drops what does nothing"};
  Function operator()(Function fn, const Program&, passline::PassContext&) const {
    fn.code = rewrite_windows(std::move(fn.code), 2, [](std::span<const Instr> w) -> std::optional<std::vector<Instr>> {
      const bool nothing = ((w[0].op == Op::push || w[0].op == Op::dup) && w[1].op == Op::pop) ||
                           (w[0].op == Op::swap && w[1].op == Op::swap);
      return nothing ? std::optional(std::vector<Instr>{}) : std::nullopt;
    });
    return fn;
  }
};

/// Drops the functions @main does not call, directly or not.
struct DeadFunctions {
  static constexpr passline::PassInfo info{.name = "dead-functions", .opt_level = 2, .summary = "drops uncalled functions"};
  Program operator()(Program program, passline::PassContext&) const {
    std::set<std::string> live{"main"};
    for (bool grew = true; grew;) {
      grew = false;
      for (const Function& fn : program.functions) {
        if (!live.contains(fn.name)) continue;
        for (const Instr& in : fn.code) {
          if (in.op == Op::call) grew = live.insert(in.callee).second || grew;
        }
      }
    }
    std::erase_if(program.functions, [&](const Function& fn) { return !live.contains(fn.name); });
    return program;
  }
};
// [passes]

// [registry]
/// The passes and pipelines, by name, in the IR's global registry.
passline::Registry<Program>& registry() {
  static passline::Registry<Program>& passes = [&]() -> passline::Registry<Program>& {
    passline::Registry<Program>& r = passline::Registry<Program>::global();
    r.add<Canonicalize>().add<FoldConstants>().add<Peephole>().add<DeadFunctions>();
    r.add<passline::Sequential<Canonicalize, FoldConstants, Peephole>>("O1");
    r.add<passline::Sequential<Canonicalize, FoldConstants, Peephole, DeadFunctions>>("O2");
    return r;
  }();
  return passes;
}
// [registry]

}  // namespace stack

// [reduce]
/// What --reduce may do to a program: drop functions, empty them (a body
/// of `push 0; ret`, taking what it took), and drop runs of instructions
/// inside them. A candidate that is not a valid program is never run.
template <>
struct passline::reduce::ReduceTraits<stack::Program> {
  using Program = stack::Program;
  static std::optional<Program> valid(Program p) {
    try {
      stack::verify(p);
      return p;
    } catch (const std::runtime_error&) {
      return std::nullopt;
    }
  }
  static std::size_t size(const Program& p) {
    std::size_t n = 0;
    for (const stack::Function& fn : p.functions) n += fn.code.size() + 1;
    return n;
  }
  static std::size_t function_count(const Program& p) { return p.functions.size(); }
  static std::optional<Program> keep_functions(const Program& p, const std::vector<bool>& keep) {
    Program out;
    for (std::size_t i = 0; i < p.functions.size(); ++i) {
      if (keep[i]) out.functions.push_back(p.functions[i]);
    }
    return valid(std::move(out));
  }
  static std::optional<Program> empty_functions(const Program& p, const std::vector<bool>& empty) {
    Program out = p;
    for (std::size_t i = 0; i < out.functions.size(); ++i) {
      stack::Function& fn = out.functions[i];
      if (!empty[i]) continue;
      fn.code = {stack::push(0, 0), {.op = stack::Op::ret, .value = 0, .callee = {}, .offset = 0}};
      for (int input = 0; input < fn.inputs; ++input) fn.code.insert(fn.code.begin(), {.op = stack::Op::pop, .value = 0, .callee = {}, .offset = 0});
    }
    return valid(std::move(out));
  }
  /// The statements of a function: the runs of instructions that leave the
  /// stack as deep as they found it (`push 4; push 1; add; pop`), dropped
  /// whole, then what is left one instruction at a time.
  static std::vector<std::vector<stack::Instr>> statements(const stack::Function& fn, const Program& p) {
    std::map<std::string, int> inputs;
    for (const stack::Function& f : p.functions) inputs[f.name] = f.inputs;
    std::vector<std::vector<stack::Instr>> out(1);
    int depth = fn.inputs;
    for (const stack::Instr& in : fn.code) {
      const auto [takes, leaves] = stack::effect(in, inputs);
      depth += leaves - takes;
      out.back().push_back(in);
      if (depth == fn.inputs) out.emplace_back();
    }
    if (out.back().empty()) out.pop_back();
    return out;
  }
  static Program simplify(const Program& p, const Judge<Program>& judge, const Stop& stop) {
    Program best = p;
    for (std::size_t f = 0; f < best.functions.size() && !stop(); ++f) {
      for (const bool whole : {true, false}) {
        std::vector<std::vector<stack::Instr>> units;
        if (whole) {
          units = statements(best.functions[f], best);
        } else {
          for (const stack::Instr& in : best.functions[f].code) units.push_back({in});
        }
        auto with = [&](const std::vector<bool>& keep) {
          Program candidate = best;
          candidate.functions[f].code.clear();
          for (std::size_t i = 0; i < units.size(); ++i) {
            if (keep[i]) candidate.functions[f].code.insert(candidate.functions[f].code.end(), units[i].begin(), units[i].end());
          }
          return valid(std::move(candidate));
        };
        if (std::optional<Program> smaller = keep_failing<Program>(units.size(), with, judge.still, stop)) {
          best = std::move(*smaller);
        }
      }
    }
    return best;
  }
};
// [reduce]
