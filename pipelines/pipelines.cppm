// Standard pipelines for the reference IR: O0..O3, checked by the compiler.
//
// Each level is a static Sequential, so the compiler checks that every pass's
// required passes come before it; each is also registered under its name, so
// `O2` works in pipeline text and as `passline-opt -O2`. A pass runs when the
// context's opt level reaches its own, so `O2` under `--opt-level=1` skips
// FoldConstant, as in TVM.
module;
export module passline.pipelines;
import passline;
import passline.ir;
import passline.ir.passes;

export namespace passline::pipelines {

/// Each level is a static pipeline under its own name, so that a static use
/// (`passline::pipelines::O2{}(module, ctx)`) stands as `O2` in timings and
/// errors, as the registered one does.

/// Types only: what every later level starts from.
using O0 = Named<"O0", Sequential<ir::InferType>>;
/// Cheap clean-ups: identities and dead code.
using O1 = Named<"O1", Sequential<ir::InferType, ir::SimplifyExpr, ir::DeadCodeElimination>>;
/// Folding and identities, common subexpressions, the identities they expose
/// (x - x once both are one value), then dead code.
using O2 = Named<"O2", Sequential<ir::InferType, ir::FoldConstant, ir::SimplifyExpr, ir::EliminateCommonSubexpr,
                                  ir::SimplifyExpr, ir::DeadCodeElimination>>;
/// O2 after inlining small functions.
using O3 = Named<"O3", Sequential<ir::InferType, ir::Inline, ir::FoldConstant, ir::SimplifyExpr,
                                  ir::EliminateCommonSubexpr, ir::SimplifyExpr, ir::DeadCodeElimination>>;

/// The registry of the reference IR with its passes and O0..O3 in it.
Registry<ir::Module>& registry() {
  static Registry<ir::Module>& global = []() -> Registry<ir::Module>& {
    Registry<ir::Module>& r = ir::registry();
    r.add<O0>("O0");
    r.add<O1>("O1");
    r.add<O2>("O2");
    r.add<O3>("O3");
    return r;
  }();
  return global;
}

}  // namespace passline::pipelines

namespace passline::pipelines::detail {
/// Importing the module registers O0..O3.
const bool registered = (registry(), true);
}  // namespace passline::pipelines::detail
