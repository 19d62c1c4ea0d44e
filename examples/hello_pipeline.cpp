// The smallest end-to-end passline program: a tiny straight-line IR, three real
// passes, and the same passes run as a static pipeline (types, checked and
// inlined by the compiler) and as a runtime pipeline (Pass<IR> values chosen at
// run time), each under a PassContext that decides which passes run.
#include <fmt/core.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>
import passline;

namespace calc {

enum class Op { Param, Const, Add, Mul };

/// One SSA instruction; operands are indices of earlier instructions.
struct Instr {
  Op op;
  std::int64_t value = 0;  // the constant, or the parameter index
  int lhs = -1;
  int rhs = -1;
};

struct Function {
  std::string name;
  std::vector<Instr> body;
  int result = 0;
};

struct Module {
  std::vector<Function> functions;
};

void print(const Module& module) {
  for (const Function& fn : module.functions) {
    fmt::print("func @{} {{\n", fn.name);
    for (std::size_t i = 0; i < fn.body.size(); ++i) {
      const Instr& in = fn.body[i];
      switch (in.op) {
        case Op::Param: fmt::print("  %{} = param {}\n", i, in.value); break;
        case Op::Const: fmt::print("  %{} = const {}\n", i, in.value); break;
        case Op::Add: fmt::print("  %{} = add %{}, %{}\n", i, in.lhs, in.rhs); break;
        case Op::Mul: fmt::print("  %{} = mul %{}, %{}\n", i, in.lhs, in.rhs); break;
      }
    }
    fmt::print("  return %{}\n}}\n", fn.result);
  }
}

/// Replaces arithmetic on two constants by the constant it computes.
struct FoldConstant {
  static constexpr passline::PassInfo info{
      .name = "FoldConstant", .opt_level = 1, .summary = "folds arithmetic on constants"};

  Module operator()(Module module, passline::PassContext&) const {
    int folded = 0;
    for (Function& fn : module.functions) {
      for (Instr& in : fn.body) {
        if (in.op != Op::Add && in.op != Op::Mul) continue;
        const Instr& a = fn.body[in.lhs];
        const Instr& b = fn.body[in.rhs];
        if (a.op != Op::Const || b.op != Op::Const) continue;
        in = {.op = Op::Const, .value = in.op == Op::Add ? a.value + b.value : a.value * b.value};
        ++folded;
      }
    }
    fmt::print("  FoldConstant: folded {} instruction(s)\n", folded);
    return module;
  }
};

/// Rewrites `x * 1` and `x + 0` to `x` by forwarding uses of the instruction.
struct SimplifyAlgebra {
  static constexpr passline::PassInfo info{
      .name = "SimplifyAlgebra", .opt_level = 2, .summary = "removes x*1 and x+0"};

  Module operator()(Module module, passline::PassContext&) const {
    int simplified = 0;
    for (Function& fn : module.functions) {
      std::vector<int> forward(fn.body.size());
      for (std::size_t i = 0; i < fn.body.size(); ++i) {
        Instr& in = fn.body[i];
        forward[i] = static_cast<int>(i);
        if (in.op == Op::Add || in.op == Op::Mul) {
          in.lhs = forward[in.lhs];
          in.rhs = forward[in.rhs];
          const std::int64_t identity = in.op == Op::Add ? 0 : 1;
          const Instr& b = fn.body[in.rhs];
          if (b.op == Op::Const && b.value == identity) {
            forward[i] = in.lhs;
            ++simplified;
          }
        }
      }
      fn.result = forward[fn.result];
    }
    fmt::print("  SimplifyAlgebra: simplified {} instruction(s)\n", simplified);
    return module;
  }
};

/// Removes instructions the result does not depend on, and renumbers the rest.
/// Parameters stay: they are the function's signature.
struct DeadCodeElimination {
  static constexpr passline::PassInfo info{
      .name = "DeadCodeElimination", .opt_level = 1, .summary = "removes unused instructions"};

  Module operator()(Module module, passline::PassContext&) const {
    int removed = 0;
    for (Function& fn : module.functions) {
      std::vector<bool> live(fn.body.size(), false);
      live[fn.result] = true;
      for (std::size_t i = 0; i < fn.body.size(); ++i) live[i] = live[i] || fn.body[i].op == Op::Param;
      for (std::size_t i = fn.body.size(); i-- > 0;) {
        const Instr& in = fn.body[i];
        if (!live[i] || in.lhs < 0) continue;
        live[in.lhs] = true;
        live[in.rhs] = true;
      }
      std::vector<int> index(fn.body.size(), -1);
      std::vector<Instr> kept;
      for (std::size_t i = 0; i < fn.body.size(); ++i) {
        if (!live[i]) { ++removed; continue; }
        Instr in = fn.body[i];
        if (in.lhs >= 0) { in.lhs = index[in.lhs]; in.rhs = index[in.rhs]; }
        index[i] = static_cast<int>(kept.size());
        kept.push_back(in);
      }
      fn.body = std::move(kept);
      fn.result = index[fn.result];
    }
    fmt::print("  DeadCodeElimination: removed {} instruction(s)\n", removed);
    return module;
  }
};

/// f(x, y) = (x * (2 + -1)) + (3 * 4), with an unused y * y.
Module example() {
  return {{{.name = "f",
            .body = {{.op = Op::Param, .value = 0}, {.op = Op::Param, .value = 1},
                     {.op = Op::Const, .value = 2}, {.op = Op::Const, .value = -1},
                     {.op = Op::Add, .lhs = 2, .rhs = 3}, {.op = Op::Mul, .lhs = 0, .rhs = 4},
                     {.op = Op::Const, .value = 3}, {.op = Op::Const, .value = 4},
                     {.op = Op::Mul, .lhs = 6, .rhs = 7}, {.op = Op::Add, .lhs = 5, .rhs = 8},
                     {.op = Op::Mul, .lhs = 1, .rhs = 1}},
            .result = 9}}};
}

}  // namespace calc

int main() {
  using namespace calc;
  fmt::print("input:\n");
  print(example());

  // A static pipeline: the passes are template arguments.
  using Optimize =
      passline::Sequential<FoldConstant, SimplifyAlgebra, FoldConstant, DeadCodeElimination>;
  passline::PassContext o2;  // opt_level 2: every pass runs
  fmt::print("\nstatic pipeline at opt level {}:\n", o2.opt_level);
  Module optimized = Optimize{}(example(), o2);
  print(optimized);

  // A runtime pipeline: type-erased passes, chosen while the program runs.
  const passline::Pass<Module> pipeline =
      passline::sequential<Module>({FoldConstant{}, SimplifyAlgebra{}, DeadCodeElimination{}});
  passline::PassContext o1{.opt_level = 1};  // SimplifyAlgebra (level 2) is skipped
  auto scope = o1.enter();
  const passline::PassContext& current = passline::PassContext::current();
  fmt::print("\nruntime pipeline at opt level {}:", current.opt_level);
  for (const auto& pass : pipeline.passes()) {
    fmt::print(" {}{}", pass.info().name, current.pass_enabled(pass.info()) ? "" : " (skipped)");
  }
  fmt::print("\n");
  Module reduced = pipeline(example());
  print(reduced);
}
