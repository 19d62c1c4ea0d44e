// The compiled form of a static pipeline: the opt level and the disabled passes
// fixed at compile time, so that the passes they exclude vanish from the type
// and no PassContext is consulted.
//
// `Compiled<2, Pipeline, "Inline">` is a `CompiledSequential<...>` of the leaf
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
export module passline:compiled;
import :pass_info;
import :context;
import :diagnostics;
import :analysis;
import :checks;
import :invoke;

namespace hana = boost::hana;

export namespace passline {

/// A pipeline with nothing left to decide at run time: its passes always run.
template <class... Passes>
struct CompiledSequential {
  static constexpr auto passes = hana::tuple_t<Passes...>;
  /// Which passes run was decided at compile time: a runtime plan runs them all.
  static constexpr bool decided = true;

  static constexpr PassInfo info{
      .name = "CompiledSequential",
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
    (void)std::initializer_list<int>{(ir = detail::invoke_pass(Passes{}, std::move(ir), ctx), 0)...};
    return ir;
  }
};

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
  static constexpr auto plan = close_over_requirements(
      Facts::infos, Facts::providers,
      [](const PassInfo& info) { return !is_disabled(info.name) && OptLevel >= info.opt_level; },
      [](std::string_view name) { return is_disabled(name); });

  using Carrier = typename decltype(finding_carrier<Leaves, plan.finding>())::type;

  static constexpr auto kept = [] {
    std::array<std::size_t, Facts::size> positions{};
    std::size_t size = 0;
    for (std::size_t i = 0; i < Facts::size; ++i) {
      if (plan.runs[i]) positions[size++] = i;
    }
    return std::pair{positions, size};
  }();

  // A pass inserted for a requirement that is kept always runs: it is the
  // pass itself again.
  template <std::size_t... K>
  static auto select(std::index_sequence<K...>)
      -> CompiledSequential<typename without_inserted<type_at<Leaves, kept.first[K]>>::type...>;

  // One static_assert, and then an empty pipeline so that nothing else fails.
  using type = decltype(select(
      std::make_index_sequence<(diagnose<Carrier>(), std::is_void_v<Carrier>) ? kept.second : 0>{}));
};

}  // namespace passline::detail

export namespace passline {

/// `Pipeline` compiled for `OptLevel` with the passes named `Disabled...` removed.
template <int OptLevel, class Pipeline, fixed_string... Disabled>
using Compiled = typename detail::Compiler<OptLevel, Pipeline, Disabled...>::type;

}  // namespace passline
