// Static pipelines: `Sequential<A, B, C>` is itself a pass whose passes are types.
//
// The compiler checks a pipeline where it is run: each element must be a pass
// over the IR, names must be unique, and every required pass must come earlier
// (nested Sequentials are flattened for this, so an inner pipeline may rely on
// an outer one). One static_assert reports the first problem. At run time each
// pass is gated by the PassContext exactly as a runtime pipeline is; the
// compiler sees every call, so a pipeline costs its passes and a few loads.
module;
#include <boost/hana.hpp>

#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
export module passline:sequential;
import :pass_info;
import :context;
import :concepts;
import :analysis;
import :checks;
import :invoke;

namespace hana = boost::hana;

namespace passline::detail {

template <class P, class IR>
IR run_gated(IR ir, PassContext& ctx) {
  if (!ctx.pass_enabled(P::info)) return ir;
  if constexpr (StaticPipeline<P>) {
    return P::run(std::move(ir), ctx);
  } else {
    return invoke_pass(P{}, std::move(ir), ctx);
  }
}

template <class... Ps>
struct PipelineFacts {
  static constexpr auto leaves = flatten_passes<Ps...>();
  static constexpr auto infos = infos_of(leaves);
  static constexpr auto external = external_requirements<total_requirements(infos)>(infos);
};

}  // namespace passline::detail

export namespace passline {

/// A static pipeline. Its PassInfo requires what its passes require and no
/// earlier pass of it provides, so an enclosing pipeline can check it.
template <class... Passes>
struct Sequential {
  /// The passes, as a Hana type tuple (nested pipelines stay nested).
  static constexpr auto passes = hana::tuple_t<Passes...>;

  static constexpr PassInfo info{
      .name = "Sequential",
      .opt_level = 0,
      .required = std::span<const std::string_view>(
          detail::PipelineFacts<Passes...>::external.first.data(),
          detail::PipelineFacts<Passes...>::external.second),
      .summary = "runs its passes in order",
  };

  /// Checks the pipeline over IR at compile time, then runs it under `ctx`.
  template <class IR>
  IR operator()(IR ir, PassContext& ctx) const {
    using Carrier = detail::pipeline_carrier_t<IR, decltype(detail::PipelineFacts<Passes...>::leaves)>;
    if constexpr (std::is_void_v<Carrier>) {
      return run(std::move(ir), ctx);
    } else {
      detail::diagnose<Carrier>();
      return ir;
    }
  }

  /// Runs the pipeline under `PassContext::current()`.
  template <class IR>
  IR operator()(IR ir) const {
    return (*this)(std::move(ir), PassContext::current());
  }

  /// Runs without the compile-time checks: how an enclosing pipeline, which has
  /// checked the whole, runs this one.
  template <class IR>
  static IR run(IR ir, PassContext& ctx) {
    hana::for_each(passes, [&](auto pass) {
      ir = detail::run_gated<typename decltype(pass)::type>(std::move(ir), ctx);
    });
    return ir;
  }
};

}  // namespace passline
