// An IR of your own under passline: a three-address code with named
// temporaries, its IRTraits, three passes (one of them required by the
// others), an analysis cached between passes, a config key, a registry with
// pipeline text, and instruments, the user's own and the built-in ones.
// docs/your-own-ir.md walks through this file.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
import passline;
import passline.instruments;

namespace tac {

/// A variable by name, or a constant.
struct Operand {
  std::string var;
  std::int64_t constant = 0;
  bool is_var() const { return !var.empty(); }
  friend bool operator==(const Operand&, const Operand&) = default;
};

enum class Op { Add, Mul };

/// `dest = lhs op rhs`
struct Instr {
  std::string dest;
  Op op;
  Operand lhs, rhs;
  friend bool operator==(const Instr&, const Instr&) = default;
};

struct Function {
  std::string name;
  std::vector<std::string> params;
  std::vector<Instr> code;
  Operand result;
  bool optnone = false;  // left alone by function passes
  friend bool operator==(const Function&, const Function&) = default;
};

struct Program {
  std::vector<Function> functions;
  friend bool operator==(const Program&, const Program&) = default;
};

std::string print(const Operand& o) { return o.is_var() ? o.var : std::to_string(o.constant); }

std::string print(const Program& program) {
  std::string out;
  for (const Function& fn : program.functions) {
    out += fmt::format("func @{}({}){} {{\n", fn.name, fmt::join(fn.params, ", "), fn.optnone ? " optnone" : "");
    for (const Instr& in : fn.code) {
      out += fmt::format("  {} = {} {} {}\n", in.dest, print(in.lhs), in.op == Op::Add ? '+' : '*', print(in.rhs));
    }
    out += fmt::format("  return {}\n}}\n", print(fn.result));
  }
  return out;
}

}  // namespace tac

// [traits]
template <>
struct passline::IRTraits<tac::Program> {
  using Function = tac::Function;
  static std::size_t function_count(const tac::Program& p) { return p.functions.size(); }
  static const Function& function(const tac::Program& p, std::size_t i) { return p.functions[i]; }
  static void replace_function(tac::Program& p, std::size_t i, Function fn) { p.functions[i] = std::move(fn); }
  static bool skips_optimization(const Function& fn) { return fn.optnone; }
  static Function take_function(tac::Program& p, std::size_t i) {
    Function& left = p.functions[i];  // keeps its name, parameters and flags
    return {.name = left.name, .params = left.params, .code = std::move(left.code), .result = left.result,
            .optnone = left.optnone};
  }
  static std::string_view function_name(const Function& fn) { return fn.name; }
  static std::string print(const tac::Program& p) { return tac::print(p); }
  static std::uint64_t fingerprint(const tac::Program& p) { return std::hash<std::string>{}(tac::print(p)); }
};
// [traits]

namespace tac {

// [analysis]
/// How often each variable of a function is read.
struct Uses {
  static constexpr passline::AnalysisInfo info{.name = "Uses", .summary = "reads of each variable"};
  std::map<std::string, int> operator()(const Function& fn, const Program&) const {
    std::map<std::string, int> uses;
    auto read = [&](const Operand& o) {
      if (o.is_var()) ++uses[o.var];
    };
    for (const Instr& in : fn.code) read(in.lhs), read(in.rhs);
    read(fn.result);
    return uses;
  }
};
// [analysis]

// [to-ssa]
/// Gives every assignment a name of its own (`t`, `t.1`, ...): single
/// assignment, which the other passes need. A function pass.
struct ToSSA {
  static constexpr passline::PassInfo info{.name = "ToSSA", .opt_level = 0, .summary = "one assignment per name"};

  Function operator()(Function fn, const Program&, passline::PassContext&) const {
    std::map<std::string, std::string> current;  // the name each variable is read by now
    std::map<std::string, int> assigned;
    auto rename = [&](Operand& o) {
      if (auto it = current.find(o.var); o.is_var() && it != current.end()) o.var = it->second;
    };
    for (Instr& in : fn.code) {
      rename(in.lhs), rename(in.rhs);
      const int n = assigned[in.dest]++;
      const std::string name = n == 0 ? in.dest : fmt::format("{}.{}", in.dest, n);
      current[in.dest] = name;
      in.dest = name;
    }
    rename(fn.result);
    return fn;
  }
};
// [to-ssa]

// [config]
/// Whether FoldConstants folds products as well as sums.
const passline::ConfigKey<bool> fold_products =
    passline::register_config<bool>("tac.fold-products", true, "fold x*y of two constants too");
// [config]

// [fold]
/// Folds operations on constants and forwards the constants they make.
/// Needs single assignment, and keeps it.
struct FoldConstants {
  static constexpr passline::PassInfo info{.name = "FoldConstants",
                                           .opt_level = 1,
                                           .required = passline::needs<"ToSSA">,
                                           .summary = "folds constants",
                                           .preserves = passline::names<"ToSSA">};

  Function operator()(Function fn, const Program&, passline::PassContext& ctx) const {
    const bool products = ctx.config.get(fold_products);
    std::map<std::string, std::int64_t> known;
    auto forward = [&](Operand& o) {
      if (auto it = known.find(o.var); o.is_var() && it != known.end()) o = Operand{.var = {}, .constant = it->second};
    };
    for (Instr& in : fn.code) {
      forward(in.lhs), forward(in.rhs);
      if (in.lhs.is_var() || in.rhs.is_var() || (in.op == Op::Mul && !products)) continue;
      known[in.dest] = in.op == Op::Add ? in.lhs.constant + in.rhs.constant : in.lhs.constant * in.rhs.constant;
    }
    forward(fn.result);
    return fn;
  }
};
// [fold]

// [dead-code]
/// Drops assignments that nothing reads. A module pass that asks the
/// analysis manager for each function's Uses.
struct DeadCode {
  static constexpr passline::PassInfo info{.name = "DeadCode",
                                           .opt_level = 1,
                                           .required = passline::needs<"ToSSA">,
                                           .summary = "drops unread assignments",
                                           .preserves = passline::names<"ToSSA">};

  Program operator()(Program program, passline::PassContext& ctx) const {
    passline::AnalysisManager<Program>& analyses = ctx.analyses<Program>();
    for (std::size_t i = 0; i < program.functions.size(); ++i) {
      Function& fn = program.functions[i];
      if (fn.optnone) continue;
      std::map<std::string, int> uses = analyses.get<Uses>(program, i);  // a copy: we update it
      std::vector<Instr> kept;
      for (auto in = fn.code.rbegin(); in != fn.code.rend(); ++in) {
        if (uses[in->dest] == 0) {
          for (const Operand* o : {&in->lhs, &in->rhs}) {
            if (o->is_var()) --uses[o->var];
          }
          continue;
        }
        kept.insert(kept.begin(), *in);
      }
      fn.code = std::move(kept);
    }
    return program;
  }
};
// [dead-code]

/// f(a, b) = a * (2 + 3) + 4 * 5, computed through one temporary `t`
/// assigned three times, with an unread b * b; g is left alone.
Program example() {
  auto var = [](std::string name) { return Operand{.var = std::move(name)}; };
  auto num = [](std::int64_t value) { return Operand{.var = {}, .constant = value}; };
  return {{{.name = "f",
            .params = {"a", "b"},
            .code = {{"t", Op::Add, num(2), num(3)},
                     {"t", Op::Mul, var("a"), var("t")},
                     {"u", Op::Mul, var("b"), var("b")},
                     {"w", Op::Mul, num(4), num(5)},
                     {"t", Op::Add, var("t"), var("w")}},
            .result = var("t")},
           {.name = "g", .params = {"x"}, .code = {{"y", Op::Add, num(1), num(1)}}, .result = var("x"), .optnone = true}}};
}

/// The SSA check that VerifyEach runs after every pass.
void verify_ssa(passline::IRView view) {
  const Program* program = view.get<Program>();
  if (!program) throw std::logic_error("not a tac::Program");
  for (const Function& fn : program->functions) {
    std::set<std::string> assigned;
    for (const Instr& in : fn.code) {
      if (!fn.optnone && !assigned.insert(in.dest).second) {
        throw std::logic_error(fmt::format("@{} assigns '{}' twice", fn.name, in.dest));
      }
    }
  }
}

}  // namespace tac

// [instrument]
/// An instrument of the user's own: one line per pass and per analysis
/// computed, indented by depth, with why the pass runs.
class Log final : public passline::Instrument {
 public:
  void before_pass(const passline::PassInfo& info, passline::IRView, const passline::PassPlace& place) override {
    std::string why;
    if (place.reason == passline::RunReason::required) why = fmt::format("  (required by {})", place.required_by);
    fmt::print("{:>{}}run {}{}\n", "", 2 * place.depth + 2, info.name, why);
  }
  void before_analysis(const passline::AnalysisInfo& info, std::string_view unit) override {
    fmt::print("    compute {} of @{}\n", info.name, unit);
  }
};
// [instrument]

int main() {
  using tac::Program;
  const passline::Output to_stdout = [](std::string_view text) { fmt::print("{}", text); };
  fmt::print("input:\n{}", tac::print(tac::example()));

  // [static]
  // A static pipeline: the compiler checks that ToSSA runs before its users
  // and that nothing between breaks it.
  using Optimize = passline::Sequential<tac::ToSSA, tac::FoldConstants, tac::DeadCode>;
  passline::PassContext plain;
  fmt::print("\nstatic pipeline:\n{}", tac::print(Optimize{}(tac::example(), plain)));
  // [static]

  // [registry]
  // The same passes by name, for pipeline text and for required passes.
  passline::Registry<Program> registry;
  registry.add<tac::ToSSA>().add<tac::FoldConstants>().add<tac::DeadCode>();
  const passline::Pass<Program> pipeline = passline::parse_pipeline("FoldConstants,DeadCode", registry);
  passline::PassContext ctx;
  fmt::print("\nplan of '{}':\n{}", pipeline.text(), passline::plan_text(pipeline.plan(ctx)));
  // [registry]

  // [instruments]
  ctx.instruments = {std::make_shared<Log>(),
                     std::make_shared<passline::PrintChanged>(passline::PrintChanged::Mode::quiet, to_stdout),
                     std::make_shared<passline::VerifyEach>(tac::verify_ssa)};
  fmt::print("\nrun with instruments:\n");
  Program optimized = pipeline(tac::example(), ctx);
  // [instruments]

  // [config-use]
  passline::PassContext no_products;
  no_products.config.set(tac::fold_products, false);
  fmt::print("\nwith tac.fold-products=false:\n{}", tac::print(pipeline(tac::example(), no_products)));
  // [config-use]

  // [errors]
  try {
    passline::parse_pipeline("FoldConstant", registry);
  } catch (const passline::PipelineSyntaxError& error) {
    fmt::print("\n{}\n", error.what());
  }
  const passline::Pass<Program> breaks_ssa = passline::function_pass<Program>(
      passline::PassInfo{.name = "Duplicate"}, [](tac::Function fn, const Program&, passline::PassContext&) {
        if (!fn.code.empty()) fn.code.push_back(fn.code.back());
        return fn;
      });
  passline::PassContext verified;
  verified.instruments = {std::make_shared<passline::VerifyEach>(tac::verify_ssa)};
  try {
    optimized = passline::sequential<Program>({breaks_ssa})(optimized, verified);
  } catch (const std::exception& error) {
    fmt::print("{}\n", error.what());
  }
  fmt::print("unchanged:\n{}", tac::print(optimized));
  // [errors]

  // [verify-preserved]
  // A pass that claims to keep single assignment, and assigns a variable
  // twice: ToSSA, run again, would rename the second assignment.
  const passline::Pass<Program> repeat = passline::function_pass<Program>(
      passline::PassInfo{.name = "Repeat", .preserves = passline::names<"ToSSA">},
      [](tac::Function fn, const Program&, passline::PassContext&) {
        if (!fn.code.empty()) fn.code.push_back(fn.code.back());
        return fn;
      });
  passline::PassContext checked;
  checked.instruments = {std::make_shared<passline::VerifyPreserved<Program>>(&registry)};
  try {
    (void)passline::sequential<Program>({registry.create("ToSSA"), repeat})(tac::example(), checked);
  } catch (const passline::VerificationError& error) {
    fmt::print("{}\n", error.what());
  }
  // [verify-preserved]
}
