// The passes of the reference IR, and the registry that names them.
//
// `import passline.ir.passes;` gives each pass as a type (to put in a static
// Sequential) and `registry()`, where each is registered under its PassInfo's
// name for pipeline text and the driver. Importing the module registers them.
module;
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>
export module passline.ir.passes;
import passline;
import passline.instruments;
import passline.ir;
import passline.support;

#include "effects.inc"
#include "analyses.inc"
#include "infer_type.inc"
#include "fold_constant.inc"
#include "dead_code.inc"
#include "cse.inc"
#include "simplify.inc"
#include "inline.inc"
#include "anf.inc"
#include "lambda_lift.inc"

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

/// `VerifyEach` with the verifier of this IR (`--verify-each`), for
/// contexts set up in C++ and Python. Here rather than in passline.ir, which
/// does not need the instruments.
inline std::shared_ptr<VerifyEach> verify_each() {
  return std::make_shared<VerifyEach>([](IRView view) {
    if (const Module* module = view.get<Module>()) verify(*module);
  });
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
