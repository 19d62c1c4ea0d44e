// passline.mlir.reduce: how the reducer (passline.reduce) shrinks MLIR.
//
// Functions (the module's symbols isolated from above, as function passes
// see them) are dropped, or emptied: a function op's body goes and it
// becomes a private declaration. Inside, MLIR's own reducer:
// libMLIRReduce's reduction tree (`reduction-tree`, the pass mlir-reduce
// runs), which deletes operations and applies the reduction patterns the
// dialects give (DialectReductionPatternInterface), each variant verified
// and judged by a test script; here the script is the judge the reduction
// hands it (the driver, which runs the try in a child process). Then a
// rewrite pattern of passline's (an operation becomes an operand of its
// own type, an argument of its function, or a constant) applied by MLIR's rewrite driver
// where delta debugging chooses, and
// the tree again for what that left unused. A candidate that does not
// verify is never run.
module;

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

export module passline.mlir.reduce;
import passline;
import passline.mlir;
import passline.reduce;

export namespace passline::mlir {

/// The operations of `module`, the module itself left out.
std::size_t operation_count(const Module& module);

/// A copy of `module` with the functions `keep` keeps (by position among
/// `Module::functions`); nothing if the copy does not verify.
std::optional<Module> keep_functions(const Module& module, const std::vector<bool>& keep);

/// A copy of `module` where each function `empty` says is a private
/// declaration; nothing if none could be, or the copy does not verify.
std::optional<Module> empty_functions(const Module& module, const std::vector<bool>& empty);

/// MLIR's reduction tree on a copy of `module`, each variant judged by
/// `command` (a program and its arguments; the variant's file is added
/// first, as MLIR's Tester adds it): the smallest variant it found.
Module reduction_tree(const Module& module, const std::vector<std::string>& command);

/// Operations replaced by an operand of their type, or an argument of their
/// function of it, or a constant zero of it (integer, index and float
/// results), the places chosen by delta debugging, each candidate verified
/// and kept while `still_fails` holds.
Module to_simpler(const Module& module, const std::function<bool(const Module&)>& still_fails,
                    const std::function<bool()>& stop);

/// `planned` (a pipeline's steps, as passline::reduce::planned_steps gives
/// them) with each of MLIR's nests, one pass of the plan
/// (`func.func(cse,canonicalize)`), opened into its passes by MLIR's parser.
std::vector<passline::reduce::Step> mlir_steps(const std::vector<passline::reduce::Step>& planned);

}  // namespace passline::mlir

export template <>
struct passline::reduce::ReduceTraits<passline::mlir::Module> {
  using Module = passline::mlir::Module;
  static std::size_t size(const Module& module) { return passline::mlir::operation_count(module); }
  static std::size_t function_count(const Module& module) { return module ? module.functions().size() : 0; }
  static std::optional<Module> keep_functions(const Module& module, const std::vector<bool>& keep) {
    return passline::mlir::keep_functions(module, keep);
  }
  static std::optional<Module> empty_functions(const Module& module, const std::vector<bool>& empty) {
    return passline::mlir::empty_functions(module, empty);
  }
  /// MLIR's reduction tree (when the judge is a command), in a child
  /// process when the judge gives one (it may crash: mlir-reduce-19 does on
  /// some modules), then
  /// operations replaced by arguments or constants, then the tree again for
  /// what that left unused.
  static Module simplify(const Module& module, const Judge<Module>& judge, const Stop& stop) {
    if (stop() || !module) return module;
    if (!judge.in_child) {
      // MLIR's reduction tree judges by a test script only: without a command, what is left is ours.
      if (!judge.command) return passline::mlir::to_simpler(module, judge.still, stop);
      return passline::mlir::reduction_tree(module, judge.command());
    }
    auto tree = [&](const Module& m) -> Module {
      const std::optional<std::string> smaller = judge.in_child(passline::mlir::print(m));
      if (!smaller || stop()) return m;
      try {
        Module reread = passline::mlir::parse(*smaller, "<reduced>", *m.op()->getContext());
        return size(reread) < size(m) ? reread : m;
      } catch (const passline::mlir::MlirError&) {
        return m;
      }
    };
    Module best = tree(module);
    const std::size_t before = size(best);
    best = passline::mlir::to_simpler(best, judge.still, stop);
    return size(best) < before ? tree(best) : best;
  }
};
