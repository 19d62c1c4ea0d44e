// passline.ir.reduce: how the reducer (passline.reduce) shrinks reference IR.
//
// Functions are dropped, or emptied to the smallest body of their result
// type (a constant). Inside functions, the candidate simplifications, each
// kind tried over every place it applies by delta debugging, in this order:
// a `let` goes, its variable replaced by a constant of its type; an `if`
// becomes its then branch, or its else branch; an operation or call becomes
// one of its operands of its own type, or a constant of its type. Types come
// from InferType run on a copy, so every candidate is typed as its input
// was; a candidate the verifier rejects is never run. How: reduce.cpp.
module;
#include <cstddef>
#include <optional>
#include <vector>
export module passline.ir.reduce;
import passline.ir;
import passline.reduce;

export template <>
struct passline::reduce::ReduceTraits<passline::ir::Module> {
  using Module = passline::ir::Module;

  /// Its expressions (every node of every body).
  static std::size_t size(const Module& module) {
    std::size_t nodes = 0;
    for (const auto& fn : module.functions) nodes += fn.body->size();
    return nodes;
  }
  static std::size_t function_count(const Module& module) { return module.functions.size(); }

  /// The functions `keep` says; nothing if one left calls one dropped.
  static std::optional<Module> keep_functions(const Module& module, const std::vector<bool>& keep);

  /// The functions `empty` says with the smallest body of their result
  /// type (a constant), their parameters kept; nothing if none can be.
  static std::optional<Module> empty_functions(const Module& module, const std::vector<bool>& empty);

  /// Every simplification inside functions, in order, kept while `judge` says
  /// it still fails; again while a round changes something.
  static Module simplify(const Module& input, const Judge<Module>& judge, const Stop& stop);

 private:
  /// `module` typed by InferType, node for node; as it is if it does not type.
  static Module typed_copy(const Module& module);
};
