// Standard pipelines for the reference IR: O0..O3, checked by the compiler.
//
// Each level is written once, as pipeline text, and read at compile time
// into a static Sequential (`Passes::Pipeline<o2_text>`), so the compiler
// checks that every pass's required passes come before it; each is also
// registered under its name, so `O2` works in pipeline text and as
// `passline-opt -O2`. A pass runs when the context's opt level reaches its
// own, so `O2` under `--opt-level=1` skips FoldConstant, as in TVM.
module;
export module passline.pipelines;
import passline;
import passline.ir;
import passline.ir.passes;

export namespace passline::pipelines {

/// The passes the standard pipelines are written with.
using Passes = Catalog<ir::InferType, ir::FoldConstant, ir::SimplifyExpr, ir::EliminateCommonSubexpr,
                       ir::DeadCodeElimination, ir::Inline>;

/// Each level is written once, as pipeline text: read at compile time into
/// the static pipeline below, and by the registry when a run names it.
/// Types only: what every later level starts from.
inline constexpr fixed_string o0_text = "InferType";
/// Cheap clean-ups: identities and dead code.
inline constexpr fixed_string o1_text = "InferType,SimplifyExpr,DeadCodeElimination";
/// Folding and identities, common subexpressions, the identities they expose
/// (x - x once both are one value), then dead code.
inline constexpr fixed_string o2_text =
    "InferType,FoldConstant,SimplifyExpr,EliminateCommonSubexpr,SimplifyExpr,DeadCodeElimination";
/// O2 after inlining small functions.
inline constexpr fixed_string o3_text =
    "InferType,Inline,FoldConstant,SimplifyExpr,EliminateCommonSubexpr,SimplifyExpr,DeadCodeElimination";

/// Each level is a static pipeline under its own name, so that a static use
/// (`passline::pipelines::O2{}(module, ctx)`) stands as `O2` in timings and
/// errors, as the registered one does.
using O0 = Named<"O0", Passes::Pipeline<o0_text>>;
using O1 = Named<"O1", Passes::Pipeline<o1_text>>;
using O2 = Named<"O2", Passes::Pipeline<o2_text>>;
using O3 = Named<"O3", Passes::Pipeline<o3_text>>;

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
