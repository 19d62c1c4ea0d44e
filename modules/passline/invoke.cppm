// Internal: running one pass of either shape. Not part of the API.
//
// A module pass is called as it is. A function pass is lifted to the module, as
// TVM does: it runs on every function not marked to skip optimization, and
// every call sees the module as it was before the pass, so the order of the
// functions cannot change the result.
module;
#include <cstddef>
#include <utility>
#include <vector>
export module passline:invoke;
import :context;
import :concepts;
import :ir_traits;

namespace passline::detail {

template <class P, class IR>
IR run_function_pass(const P& pass, IR ir, PassContext& ctx) {
  using Traits = IRTraits<IR>;
  const std::size_t count = Traits::function_count(ir);
  std::vector<std::pair<std::size_t, FunctionOf<IR>>> updates;
  updates.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const FunctionOf<IR>& fn = Traits::function(ir, i);
    if (Traits::skips_optimization(fn)) continue;
    updates.emplace_back(i, pass(FunctionOf<IR>(fn), std::as_const(ir), ctx));
  }
  for (auto& [index, fn] : updates) Traits::replace_function(ir, index, std::move(fn));
  return ir;
}

template <class P, class IR>
IR invoke_pass(const P& pass, IR ir, PassContext& ctx) {
  if constexpr (ModulePass<P, IR>) {
    return pass(std::move(ir), ctx);
  } else {
    return run_function_pass(pass, std::move(ir), ctx);
  }
}

}  // namespace passline::detail
