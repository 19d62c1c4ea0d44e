// The passes of the reference IR, and the registry that names them.
//
// `import passline.ir.passes;` gives each pass as a type (to put in a static
// Sequential) and `registry()`, where each is registered under its PassInfo's
// name for pipeline text and the driver. Importing the module registers them.
module;
export module passline.ir.passes;
export import :infer_type;
export import :fold_constant;
export import :effects;
export import :dead_code;
export import :cse;
export import :simplify;
export import :inline_;
export import :anf;
export import :lambda_lift;
export import :analyses;
import passline;
import passline.ir;

export namespace passline::ir {

/// Registers every pass of the reference IR in `registry`.
void register_passes(Registry<Module>& registry) {
  registry.add<InferType>();
  registry.add<FoldConstant>();
  registry.add<DeadCodeElimination>();
  registry.add<EliminateCommonSubexpr>();
  registry.add<SimplifyExpr>();
  registry.add<Inline>();
  registry.add<ToANormalForm>();
  registry.add<LambdaLift>();
}

/// The process-wide registry of the reference IR, with every pass in it.
Registry<Module>& registry() {
  static Registry<Module>& global = []() -> Registry<Module>& {
    Registry<Module>& r = Registry<Module>::global();
    register_passes(r);
    return r;
  }();
  return global;
}

}  // namespace passline::ir

namespace passline::ir::detail {
/// Importing the module fills the global registry, so that runtime pipelines
/// find required passes (FoldConstant's InferType) with no call to make first.
const bool registered = (registry(), true);
}  // namespace passline::ir::detail
