// Internal: the compile-time analysis behind static pipelines. Not part of the API.
//
// Pass lists are Hana type tuples; everything about them is computed once, by
// constexpr functions over a `std::array<PassInfo, N>`, with a hash table from
// names to positions. That keeps the checks linear in the number of passes, free
// of template recursion, and well inside clang's constexpr step budget at 1000
// passes. The functions return findings (indices); `:sequential` and friends turn
// a finding into exactly one static_assert with a carrier type.
module;
#include <boost/hana.hpp>
#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/list.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>
export module passline:analysis;
import :pass_info;
import :requirements;
import :concepts;

namespace hana = boost::hana;

namespace passline::detail {

/// A static pipeline: a type that exposes its passes as a Hana type tuple.
template <class P>
concept StaticPipeline = requires { P::passes; };

/// A flat list of pass types (Boost.Mp11's list). Per-pass work expands its
/// pack directly and picks the I-th type in constant time (mp_at_c), which
/// keeps a thousand passes cheap to compile; Hana tuples are what the API
/// shows and what nested pipelines are flattened with.
template <class... Ts>
using TypeList = boost::mp11::mp_list<Ts...>;

template <class List>
inline constexpr std::size_t size_of = boost::mp11::mp_size<List>::value;

template <class Tuple>
constexpr auto to_type_list(Tuple types) {
  return hana::unpack(types, [](auto... pass) { return TypeList<typename decltype(pass)::type...>{}; });
}

/// The leaf passes of `P` as a Hana type tuple: P itself, or the flattened
/// passes of a pipeline.
template <class P>
constexpr auto leaves_of() {
  if constexpr (StaticPipeline<P>) {
    return hana::unpack(P::passes, [](auto... pass) {
      return hana::flatten(hana::make_tuple(leaves_of<typename decltype(pass)::type>()...));
    });
  } else {
    return hana::tuple_t<P>;
  }
}

/// The flattened leaf passes of a list of passes and pipelines. A list with no
/// pipeline in it is already flat and is not touched; one pipeline alone is
/// its passes' list.
template <class... Ps>
constexpr auto flatten_passes() {
  constexpr std::array<bool, sizeof...(Ps) + 1> nested{StaticPipeline<Ps>..., false};
  if constexpr (std::ranges::find(nested, true) == nested.end()) {
    return TypeList<Ps...>{};
  } else if constexpr (sizeof...(Ps) == 1) {
    return hana::unpack((Ps::passes, ...), [](auto... pass) { return flatten_passes<typename decltype(pass)::type...>(); });
  } else {
    return to_type_list(hana::flatten(hana::make_tuple(leaves_of<Ps>()...)));
  }
}

template <class List, std::size_t I>
using type_at = boost::mp11::mp_at_c<List, I>;

/// A PassInfo the compiler could evaluate. One that it could not (braces
/// where `passline::needs<...>` is meant, say) has had its error where it is
/// declared; the checks of a pipeline then skip the pass, so that the one
/// error stays the only one.
template <class P>
concept ConstantInfo = HasPassInfo<P> && requires {
  typename std::integral_constant<std::size_t, (P::info.name.size(), P::info.required.size() + P::info.preserves.size())>;
};

template <class P>
constexpr PassInfo info_of() {
  if constexpr (ConstantInfo<P>) {
    return P::info;
  } else {
    return PassInfo{};
  }
}

/// The PassInfo of each type of a list (empty for non-passes).
template <class... Ts>
constexpr std::array<PassInfo, sizeof...(Ts)> infos_of(TypeList<Ts...>) {
  return {info_of<Ts>()...};
}

/// One address per type, so that constexpr code can tell two types apart; a
/// pass inserted for a requirement, or configured, is the pass it wraps.
template <class T>
inline constexpr char type_tag = 0;

template <class T>
struct pass_identity {
  using type = T;
};
template <class P>
struct pass_identity<Inserted<P>> {
  using type = P;
};
template <class P, auto Set>
struct pass_identity<Configured<P, Set>> {
  using type = P;
};

/// The pass that resolution inserted, as itself: what the compiled form runs.
template <class T>
struct without_inserted {
  using type = T;
};
template <class P>
struct without_inserted<Inserted<P>> {
  using type = P;
};

template <class... Ts>
constexpr std::array<const void*, sizeof...(Ts)> type_ids_of(TypeList<Ts...>) {
  return {&type_tag<typename pass_identity<Ts>::type>...};
}

/// Fills `first` with the first position of each name; reports two different
/// types with one name.
template <std::size_t N>
constexpr Finding index_names(const std::array<PassInfo, N>& infos,
                              const std::array<const void*, N>& ids, NameIndex& first) {
  for (std::size_t i = 0; i < N; ++i) {
    if (infos[i].name.empty()) continue;  // not a pass: the shape check reports it
    std::size_t j = first.insert(infos[i].name, i);
    if (ids[j] != ids[i]) return {.problem = Problem::duplicate_name, .pass = j, .other = i};
  }
  return {};
}

/// The ordering check of a plain pipeline, by the rule of `:requirements`:
/// each required name is carried by an earlier pass, and no pass since has
/// failed to preserve it. Which pipelines may require passes they do not
/// hold: open ones, which become runtime passes, leave those to the run.
enum class Openness { closed, open };

template <std::size_t N>
constexpr Finding check_order(const std::array<PassInfo, N>& infos, const std::array<const void*, N>& ids,
                              Openness openness = Openness::closed) {
  NameIndex first(N);
  if (Finding duplicate = index_names(infos, ids, first); duplicate.problem != Problem::none) {
    return duplicate;
  }
  Validity validity(N);
  auto name_of = [&](std::size_t id) { return infos[id].name; };
  for (std::size_t i = 0; i < N; ++i) {
    if (infos[i].name.empty()) continue;
    for (std::size_t r = 0; r < infos[i].required.size(); ++r) {
      const std::string_view required = infos[i].required[r];
      if (required == infos[i].name) return {.problem = Problem::self_requirement, .pass = i, .requirement = r};
      const std::size_t j = first.find(required);
      if (j == npos) {
        if (openness == Openness::open) continue;
        return {.problem = Problem::missing, .pass = i, .requirement = r};
      }
      if (j > i) return {.problem = Problem::after_user, .pass = i, .other = j, .requirement = r};
      if (!validity.holds(j)) {
        return {.problem = Problem::broken, .pass = i, .other = j, .requirement = r, .breaker = validity.broken_by(j)};
      }
    }
    validity.ran(infos[i], first.find(infos[i].name), i, name_of);
  }
  return {};
}

template <std::size_t N>
constexpr std::size_t total_requirements(const std::array<PassInfo, N>& infos) {
  std::size_t total = 0;
  for (const PassInfo& info : infos) total += info.required.size();
  return total;
}

/// Names required inside a pipeline that no earlier pass of it provides, once
/// each, in order of first use; `Capacity` bounds their number.
template <std::size_t Capacity, std::size_t N>
constexpr auto external_requirements(const std::array<PassInfo, N>& infos) {
  std::array<std::string_view, Capacity> names{};
  std::size_t size = 0;
  NameIndex seen(N + Capacity);
  for (std::size_t i = 0; i < N; ++i) {
    for (std::string_view required : infos[i].required) {
      if (seen.insert(required, N + size) == N + size) names[size++] = required;
    }
    seen.insert(infos[i].name, i);
  }
  return std::pair{names, size};
}

/// What the analysis knows of a pipeline of `Ps...`, computed once.
template <class... Ps>
struct PipelineFacts {
  using Leaves = decltype(flatten_passes<Ps...>());
  static constexpr Leaves leaves{};
  static constexpr auto infos = infos_of(leaves);
  static constexpr std::size_t size = infos.size();
  static constexpr std::size_t requirement_count = total_requirements(infos);
  static constexpr auto external = external_requirements<requirement_count>(infos);
};

/// A table of PassInfo for `satisfy`: ids are first positions of names.
template <std::size_t N>
struct InfoTable {
  const std::array<PassInfo, N>& infos;
  const NameIndex& first;
  constexpr const PassInfo& info(std::size_t id) const { return infos[id]; }
  constexpr std::size_t find(std::string_view name) const { return first.find(name); }
};

/// A resolved pipeline while it is computed: positions in the candidate list
/// (the user's passes first, then the catalog's), or the problem that stops it.
struct Resolution {
  Finding finding{};
  std::vector<std::size_t> order;
  std::vector<unsigned char> inserted;  // per position of `order`: put there for a requirement
  std::vector<std::size_t> cycle;
};

/// Inserts, before each of the first `user_count` passes, the passes that must
/// run for its requirements to hold (`satisfy`), found by name among all
/// candidates: a pass that had not run, or one to run again because a pass
/// since did not preserve it. The user's passes keep their order.
template <std::size_t N>
constexpr Resolution resolve_order(const std::array<PassInfo, N>& infos, const std::array<const void*, N>& ids,
                                   std::size_t user_count) {
  Resolution result;
  NameIndex first(N);
  if (Finding duplicate = index_names(infos, ids, first); duplicate.problem != Problem::none) {
    result.finding = duplicate;
    return result;
  }
  InfoTable<N> table{infos, first};
  Validity validity(N);
  auto name_of = [&](std::size_t id) { return infos[id].name; };
  auto run = [&](std::size_t pass, bool inserted) {
    validity.ran(infos[pass], first.find(infos[pass].name), result.order.size(), name_of);
    result.order.push_back(pass);
    result.inserted.push_back(inserted ? 1 : 0);
  };
  SatisfyStack work;
  for (std::size_t user = 0; user < user_count; ++user) {
    if (infos[user].name.empty()) {  // not a pass: kept in place for the shape check
      result.order.push_back(user);
      result.inserted.push_back(0);
      continue;
    }
    const Finding finding =
        satisfy(table, first.find(infos[user].name), validity, [&](std::size_t id, Reason, std::size_t) { run(id, true); },
                work, &result.cycle);
    if (finding.problem != Problem::none) {
      result.finding = finding;
      if (finding.problem == Problem::conflict) result.finding.breaker = result.order[finding.breaker];
      return result;
    }
    run(user, false);
  }
  return result;
}

/// The same as fixed-size arrays, for use as template arguments.
template <std::size_t Size, std::size_t CycleSize>
struct ResolutionPlan {
  Finding finding{};
  std::array<std::size_t, Size> order{};
  std::array<bool, Size> inserted{};
  std::array<std::size_t, CycleSize> cycle{};
  static constexpr std::size_t size = Size;
  static constexpr std::size_t cycle_size = CycleSize;
};

template <std::size_t Size, std::size_t CycleSize>
constexpr ResolutionPlan<Size, CycleSize> fix_resolution(const Resolution& resolution) {
  ResolutionPlan<Size, CycleSize> plan;
  plan.finding = resolution.finding;
  for (std::size_t k = 0; k < Size; ++k) {
    plan.order[k] = resolution.order[k];
    plan.inserted[k] = resolution.inserted[k] != 0;
  }
  for (std::size_t k = 0; k < CycleSize; ++k) plan.cycle[k] = resolution.cycle[k];
  return plan;
}

}  // namespace passline::detail
