// The compiled form of a static pipeline: the opt level and the disabled passes
// fixed at compile time, so that the passes they exclude vanish from the type
// and no PassContext is consulted.
//
// `Compiled<2, Pipeline, "Inline">` is a `CompiledPipeline<...>` of the leaf
// passes that run at opt level 2 with Inline disabled, plus every pass they
// require (as the runtime layer would run a required pass). Its call operator is
// the chain of pass calls and nothing else: it compiles to the same machine code
// as calling the passes by hand.
module;
#include <boost/hana.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
export module passline:compiled;
import :pass_info;
import :context;
import :diagnostics;
import :analysis;
import :checks;
import :invoke;
import :instrument;
import :node;
import :plan;
import :run;
import :requirements;

namespace hana = boost::hana;

export namespace passline {

/// A pipeline with nothing left to decide at run time: its passes always run,
/// each called directly. A pass that throws fails as in every other form of
/// a pipeline: a PassError naming it and its path (`Name/Pass`).
template <fixed_string Name, class... Passes>
struct CompiledPipeline {
  static constexpr auto passes = hana::tuple_t<Passes...>;
  /// Which passes run was decided at compile time: a runtime plan runs them all.
  static constexpr bool decided = true;

  static constexpr PassInfo info{
      .name = Name.view(),
      .opt_level = 0,
      .summary = "runs its passes in order, unconditionally",
  };

  template <class IR>
  IR operator()(IR ir, PassContext& ctx) const {
    using Carrier = detail::pipeline_carrier_t<IR, detail::TypeList<Passes...>>;
    if constexpr (std::is_void_v<Carrier>) {
      return run(std::move(ir), ctx);
    } else {
      detail::diagnose<Carrier>();
      return ir;
    }
  }

  template <class IR>
  static IR run(IR ir, PassContext& ctx) {
    try {
      (void)std::initializer_list<int>{(ir = call<Passes>(std::move(ir), ctx), 0)...};
    } catch (const detail::InstrumentFailure&) {
      detail::rethrow_unwrapped();
    }
    return ir;
  }

 private:
  template <class P, class IR>
  static IR call(IR ir, PassContext& ctx) {
    return detail::guarded(
        P::info, [] { return detail::path_text({P::info.name, Name.view()}); },
        [&] { return detail::invoke_pass(P{}, std::move(ir), ctx); });
  }
};

/// The compiled form of a pipeline named `Sequential`.
template <class... Passes>
using CompiledSequential = CompiledPipeline<"Sequential", Passes...>;

}  // namespace passline

namespace passline::detail {

template <int OptLevel, class Pipeline, fixed_string... Disabled>
struct Compiler {
  using Facts = PipelineFacts<Pipeline>;
  using Leaves = typename Facts::Leaves;
  static constexpr std::array<std::string_view, sizeof...(Disabled)> disabled{Disabled.view()...};
  static constexpr bool is_disabled(std::string_view name) {
    return std::ranges::find(disabled, name) != disabled.end();
  }
  /// The positions of the passes that run (`close_over_requirements`), or the problem that stops it.
  struct Kept {
    std::array<std::size_t, Facts::size> positions{};
    std::size_t size = 0;
    Finding finding{};
  };
  static constexpr Kept kept = [] {
    std::vector<unsigned char> enabled;
    for (const PassInfo& info : Facts::infos) enabled.push_back(!is_disabled(info.name) && OptLevel >= info.opt_level);
    const Closure closure = close_over_requirements(Facts::infos, std::move(enabled), &is_disabled);
    Kept result{.finding = closure.finding};
    for (std::size_t i = 0; i < Facts::size; ++i) {
      if (closure.runs[i]) result.positions[result.size++] = i;
    }
    return result;
  }();

  using Carrier = typename decltype(finding_carrier<Leaves, kept.finding>())::type;

  // A pass inserted for a requirement that is kept always runs: it is the
  // pass itself again.
  template <std::size_t... K>
  static auto select(std::index_sequence<K...>)
      -> CompiledPipeline<to_fixed_string<Pipeline::info.name.size()>(Pipeline::info.name),
                          typename without_inserted<type_at<Leaves, kept.positions[K]>>::type...>;

  // One static_assert, and then an empty pipeline so that nothing else fails.
  using type = decltype(select(
      std::make_index_sequence<(diagnose<Carrier>(), std::is_void_v<Carrier>) ? kept.size : 0>{}));
};

}  // namespace passline::detail

export namespace passline {

/// `Pipeline` compiled for `OptLevel` with the passes named `Disabled...` removed.
template <int OptLevel, class Pipeline, fixed_string... Disabled>
using Compiled = typename detail::Compiler<OptLevel, Pipeline, Disabled...>::type;

}  // namespace passline
