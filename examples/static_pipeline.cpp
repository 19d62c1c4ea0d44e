// Static pipelines, end to end: passes as types, a Sequential checked by the
// compiler, resolution from a catalog, gating under a PassContext, and the
// compiled form. docs/static-pipelines.md walks through this file.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
import passline;

// A toy IR: each function returns the sum of its terms.
struct Function {
  std::string name;
  std::vector<long> terms;
  bool typed = false;
  bool skip = false;  // marked to skip optimization
};

struct Module {
  std::vector<Function> functions;
};

// IRTraits tells passline how to reach the functions of a Module, so that
// function passes can run on each of them.
template <>
struct passline::IRTraits<Module> {
  using Function = ::Function;
  static std::size_t function_count(const Module& m) { return m.functions.size(); }
  static const Function& function(const Module& m, std::size_t i) { return m.functions[i]; }
  static void replace_function(Module& m, std::size_t i, Function f) { m.functions[i] = std::move(f); }
  static bool skips_optimization(const Function& f) { return f.skip; }
};

// [passes]
/// Checks the function and marks it typed. A function pass.
struct InferType {
  static constexpr passline::PassInfo info{
      .name = "InferType", .opt_level = 0, .summary = "annotates types"};
  Function operator()(Function f, const Module&, passline::PassContext&) const {
    f.typed = true;
    return f;
  }
};

/// Replaces the terms by their sum. Only sound on typed functions: it requires InferType.
struct FoldConstant {
  static constexpr passline::PassInfo info{.name = "FoldConstant",
                                           .opt_level = 1,
                                           .required = passline::needs<"InferType">,
                                           .summary = "folds the terms into one constant"};
  Function operator()(Function f, const Module&, passline::PassContext&) const {
    if (!f.typed) throw std::logic_error("FoldConstant ran on an untyped function");
    f.terms = {std::accumulate(f.terms.begin(), f.terms.end(), 0L)};
    return f;
  }
};

/// Removes terms that are zero. A function pass at opt level 2.
struct DeadCodeElimination {
  static constexpr passline::PassInfo info{
      .name = "DeadCodeElimination", .opt_level = 2, .summary = "removes zero terms"};
  Function operator()(Function f, const Module&, passline::PassContext&) const {
    std::erase(f.terms, 0L);
    return f;
  }
};
// [passes]

void print(const char* title, const Module& m) {
  fmt::print("{}:", title);
  for (const Function& f : m.functions) fmt::print(" {}{}", f.name, f.terms);
  fmt::print("\n");
}

Module input() {
  return {{{.name = "f", .terms = {1, 2, -3}}, {.name = "g", .terms = {4, 0, 5}},
           {.name = "h", .terms = {0, 7}, .skip = true}}};
}

int main() {
  print("input", input());

  // [sequential]
  // Checked where it runs: swapping InferType and FoldConstant is a compile error
  //   static assertion failed due to requirement 'compile_error<passline::
  //   required_pass_runs_after_its_user<FoldConstant, InferType>>': ...
  using Pipeline = passline::Sequential<InferType, FoldConstant, DeadCodeElimination>;
  passline::PassContext ctx;  // opt level 2: every pass runs
  print("O2", Pipeline{}(input(), ctx));
  // [sequential]

  // [gating]
  passline::PassContext o1{.opt_level = 1};  // DeadCodeElimination (level 2) is skipped
  print("O1", Pipeline{}(input(), o1));

  passline::PassContext no_fold{.opt_level = 2, .disabled = {"FoldConstant"}};
  {
    auto scope = no_fold.enter();  // Pipeline{}(ir) runs under PassContext::current()
    print("O2 without FoldConstant", Pipeline{}(input()));
  }

  passline::PassContext no_types{.opt_level = 2, .disabled = {"InferType"}};
  try {
    Pipeline{}(input(), no_types);
  } catch (const passline::PipelineError& error) {
    fmt::print("error: {}\n", error.what());
  }
  // [gating]

  // [resolution]
  // FoldConstant needs InferType: resolution inserts it from the catalog.
  // It is marked Inserted: it runs when (and only when) FoldConstant runs.
  using Resolved = passline::ResolvedSequential<passline::Catalog<InferType>,
                                                FoldConstant, DeadCodeElimination>;
  static_assert(std::is_same_v<Resolved, passline::Sequential<passline::Inserted<InferType>,
                                                              FoldConstant, DeadCodeElimination>>);
  // [resolution]

  // [compiled]
  // The opt level fixed at compile time: DeadCodeElimination vanishes from the type,
  // and running it consults no context.
  using AtO1 = passline::Compiled<1, Pipeline>;
  static_assert(std::is_same_v<AtO1, passline::CompiledSequential<InferType, FoldConstant>>);
  print("compiled at O1", AtO1{}(input(), ctx));
  // [compiled]
}
