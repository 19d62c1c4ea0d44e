// Static pipelines: `Sequential<A, B, C>` is itself a pass whose passes are types.
//
// Each pass runs under the current PassContext's gating rule; the compiler sees
// every call, so a pipeline costs what its passes cost.
module;
#include <boost/hana.hpp>
#include <utility>
export module passline:sequential;
import :pass_info;
import :context;
import :concepts;

namespace hana = boost::hana;

export namespace passline {

template <class... Passes>
struct Sequential {
  static constexpr PassInfo info{
      .name = "Sequential",
      .opt_level = 0,
      .summary = "runs its passes in order",
  };

  template <class IR>
    requires(ModulePass<Passes, IR> && ...)
  IR operator()(IR ir, PassContext& ctx) const {
    hana::for_each(hana::tuple_t<Passes...>, [&](auto pass_type) {
      using P = typename decltype(pass_type)::type;
      if (ctx.pass_enabled(P::info)) ir = P{}(std::move(ir), ctx);
    });
    return ir;
  }
};

}  // namespace passline
