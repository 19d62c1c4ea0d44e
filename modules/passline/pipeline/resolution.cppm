// Resolution at compile time: `ResolvedSequential<Catalog<...>, Ps...>` is the
// Sequential of `Ps...` with the passes they require inserted before them.
//
// Required passes are looked up by name, first among the pipeline's own passes,
// then in the catalog; each inserted pass comes once, after its own
// requirements, and the user's passes keep their order. A dependency cycle, a
// name nobody provides, or two types with one name stop compilation with one
// static_assert naming the passes involved.
module;
#include <boost/hana.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>
export module passline:resolution;
import :diagnostics;
import :analysis;
import :checks;
import :sequential;

namespace hana = boost::hana;

export namespace passline {

/// The pass types that resolution may insert. Pipelines in it are flattened.
template <class... Passes>
struct Catalog {
  static constexpr auto entries = detail::flatten_passes<Passes...>();
};

}  // namespace passline

namespace passline::detail {

template <class All, const auto& Plan, std::size_t... K>
auto cycle_carrier(std::index_sequence<K...>) -> dependency_cycle<type_at<All, Plan.cycle[K]>...>;

/// The carrier for the first problem of a resolution, or void.
template <class All, const auto& Plan>
constexpr auto resolution_carrier() {
  if constexpr (Plan.finding.problem == Problem::cycle) {
    return hana::type_c<decltype(cycle_carrier<All, Plan>(std::make_index_sequence<Plan.cycle_size>{}))>;
  } else {
    return finding_carrier<All, Plan.finding>();
  }
}

template <class Catalog, class... Ps>
struct Resolver {
  static constexpr auto user = flatten_passes<Ps...>();
  using User = std::remove_cvref_t<decltype(user)>;
  using All = boost::mp11::mp_append<User, std::remove_cvref_t<decltype(Catalog::entries)>>;
  static constexpr All all{};
  static constexpr std::size_t user_count = size_of<User>;
  // Types that are not passes have no name and take no part; the resolved
  // Sequential reports them, with the IR, where it runs.
  static constexpr auto infos = infos_of(all);
  static constexpr auto ids = type_ids_of(all);
  static constexpr std::size_t size = resolve_order(infos, ids, user_count).order.size();
  static constexpr std::size_t cycle_size = resolve_order(infos, ids, user_count).cycle.size();
  static constexpr auto plan = fix_resolution<size, cycle_size>(resolve_order(infos, ids, user_count));

  using Carrier = typename decltype(resolution_carrier<All, plan>())::type;

  template <class T, bool Inserted>
  struct Marked {
    using type = T;
  };
  template <class T>
  struct Marked<T, true> {
    using type = passline::Inserted<T>;
  };

  template <std::size_t... K>
  static auto select(std::index_sequence<K...>)
      -> Sequential<typename Marked<type_at<All, plan.order[K]>, plan.inserted[K]>::type...>;

  // One static_assert, and then an empty pipeline so that nothing else fails.
  using type = decltype(select(
      std::make_index_sequence<(diagnose<Carrier>(), std::is_void_v<Carrier>) ? plan.size : 0>{}));
};

}  // namespace passline::detail

export namespace passline {

/// The Sequential of `Passes...` with their missing required passes inserted.
template <class Catalog, class... Passes>
using ResolvedSequential = typename detail::Resolver<Catalog, Passes...>::type;

}  // namespace passline
