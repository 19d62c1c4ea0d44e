// passline.mlir.reduce: how the reducer (passline.reduce) shrinks MLIR.
//
// Functions (the module's symbols isolated from above, as function passes
// see them) are dropped, or emptied: a function op's body goes and it
// becomes a private declaration. Inside, MLIR's own reducer does the work:
// libMLIRReduce's reduction tree (`reduction-tree`, the pass mlir-reduce
// runs), which deletes operations and applies the reduction patterns the
// dialects give (DialectReductionPatternInterface), each variant verified
// and judged by a test script; here the script is the judge the reduction
// hands it (the driver, which runs the try in a child process). A candidate
// that does not verify is never run.
module;

#include <cstddef>
#include <optional>
#include <string>
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
  /// MLIR's reduction tree, in a child process when the reduction gives
  /// one (it may crash: mlir-reduce-19 does on some modules).
  static Module simplify(const Module& module, const Judge<Module>& judge, const Stop& stop) {
    if (stop() || !module) return module;
    if (!judge.in_child) return passline::mlir::reduction_tree(module, judge.command());
    const std::optional<std::string> smaller = judge.in_child(passline::mlir::print(module));
    if (!smaller) return module;
    try {
      return passline::mlir::parse(*smaller, "<reduced>", *module.op()->getContext());
    } catch (const passline::mlir::MlirError&) {
      return module;
    }
  }
};
