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
#include <bit>
#include <cstddef>
#include <cstdint>
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
/// pipeline in it is already flat and is not touched.
template <class... Ps>
constexpr auto flatten_passes() {
  constexpr std::array<bool, sizeof...(Ps) + 1> nested{StaticPipeline<Ps>..., false};
  if constexpr (std::ranges::find(nested, true) == nested.end()) {
    return TypeList<Ps...>{};
  } else {
    return to_type_list(hana::flatten(hana::make_tuple(leaves_of<Ps>()...)));
  }
}

template <class List, std::size_t I>
using type_at = boost::mp11::mp_at_c<List, I>;

template <class P>
constexpr PassInfo info_of() {
  if constexpr (HasPassInfo<P>) {
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

constexpr std::uint64_t hash_name(std::string_view name) {
  std::uint64_t hash = 14695981039346656037ull;
  for (char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return hash;
}

/// Open-addressing map from a pass name to the first position that carries it.
template <std::size_t N>
class NameTable {
 public:
  static constexpr std::size_t capacity = std::bit_ceil(2 * N + 2);

  /// The position already stored for `name`, or `position` after storing it.
  constexpr std::size_t insert(std::string_view name, std::size_t position) {
    std::size_t slot = find_slot(name);
    if (positions_[slot] == empty) {
      names_[slot] = name;
      positions_[slot] = position;
    }
    return positions_[slot];
  }

  /// The position stored for `name`, or `npos`.
  constexpr std::size_t find(std::string_view name) const {
    std::size_t slot = find_slot(name);
    return positions_[slot] == empty ? npos : positions_[slot];
  }

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  static constexpr std::size_t empty = npos;

  constexpr std::size_t find_slot(std::string_view name) const {
    std::size_t slot = hash_name(name) & (capacity - 1);
    while (positions_[slot] != empty && names_[slot] != name) slot = (slot + 1) & (capacity - 1);
    return slot;
  }

  std::array<std::string_view, capacity> names_{};
  std::array<std::size_t, capacity> positions_ = [] {
    std::array<std::size_t, capacity> all{};
    for (auto& p : all) p = empty;
    return all;
  }();
};

/// Fills `first` with the first position of each name; reports two different
/// types with one name.
template <std::size_t N>
constexpr Finding index_names(const std::array<PassInfo, N>& infos,
                              const std::array<const void*, N>& ids, NameTable<N>& first) {
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
  NameTable<N> first;
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
      if (j == NameTable<N>::npos) {
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
  NameTable<N + Capacity> seen;
  for (std::size_t i = 0; i < N; ++i) {
    for (std::string_view required : infos[i].required) {
      if (seen.insert(required, N + size) == N + size) names[size++] = required;
    }
    seen.insert(infos[i].name, i);
  }
  return std::pair{names, size};
}

/// For each pass, the positions of the earlier passes that provide its
/// requirements (the last pass of each required name before it: the one
/// whose work holds when it runs), flattened.
template <std::size_t N, std::size_t R>
struct ProviderTable {
  std::array<std::size_t, (R == 0 ? 1 : R)> providers{};
  std::array<std::size_t, N + 1> offsets{};
};

template <std::size_t R, std::size_t N>
constexpr ProviderTable<N, R> providers_of(const std::array<PassInfo, N>& infos) {
  ProviderTable<N, R> table;
  NameTable<N> first;
  for (std::size_t i = 0; i < N; ++i) first.insert(infos[i].name, i);
  std::array<std::size_t, N> last{};  // by the first position of a name: its last position so far
  std::size_t size = 0;
  for (std::size_t i = 0; i < N; ++i) {
    table.offsets[i] = size;
    for (std::string_view required : infos[i].required) {
      std::size_t j = first.find(required);
      if (j < i) table.providers[size++] = last[j];  // otherwise the ordering check reports it
    }
    if (!infos[i].name.empty()) last[first.find(infos[i].name)] = i;
  }
  table.offsets[N] = size;
  return table;
}

/// The lowest opt level at which each pass runs: its own, or that of a later
/// pass that requires it, transitively (a required pass runs whenever its user
/// does). Providers precede users, so one backward sweep settles every level.
template <std::size_t N, std::size_t R>
constexpr std::array<int, N> effective_levels(const std::array<PassInfo, N>& infos,
                                              const ProviderTable<N, R>& table) {
  std::array<int, N> levels{};
  for (std::size_t i = 0; i < N; ++i) levels[i] = infos[i].opt_level;
  for (std::size_t i = N; i-- > 0;) {
    for (std::size_t k = table.offsets[i]; k < table.offsets[i + 1]; ++k) {
      std::size_t j = table.providers[k];
      if (levels[i] < levels[j]) levels[j] = levels[i];
    }
  }
  return levels;
}

/// Which passes run: those `enabled` admits, and every pass they require,
/// transitively (a required pass runs whenever its user does). A required pass
/// that `disabled` names stops it with a finding naming the provider and its
/// first user.
/// Shared by the compiled form (at compile time) and by static pipelines under
/// a context that names passes (at run time).
template <std::size_t N>
struct RunPlan {
  std::array<bool, N> runs{};
  Finding finding{};
};

template <std::size_t N, std::size_t R, class Enabled, class Disabled>
constexpr RunPlan<N> close_over_requirements(const std::array<PassInfo, N>& infos,
                                             const ProviderTable<N, R>& table, Enabled enabled,
                                             Disabled disabled) {
  RunPlan<N> plan;
  // Providers come before their users, so one backward sweep closes the set.
  for (std::size_t i = N; i-- > 0;) {
    plan.runs[i] = plan.runs[i] || enabled(infos[i]);
    if (!plan.runs[i]) continue;
    for (std::size_t k = table.offsets[i]; k < table.offsets[i + 1]; ++k) {
      std::size_t j = table.providers[k];
      if (disabled(infos[j].name)) {
        // Later users come first in this sweep: the last finding names the first user.
        plan.finding = {.problem = Problem::disabled_required, .pass = i, .other = j};
        continue;
      }
      plan.runs[j] = true;
    }
  }
  return plan;
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
  static constexpr auto providers = providers_of<requirement_count>(infos);
  static constexpr auto levels = effective_levels(infos, providers);
};

/// A table of PassInfo for `satisfy`: ids are first positions of names.
template <std::size_t N>
struct InfoTable {
  const std::array<PassInfo, N>& infos;
  const NameTable<N>& first;
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
  NameTable<N> first;
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
  for (std::size_t user = 0; user < user_count; ++user) {
    if (infos[user].name.empty()) {  // not a pass: kept in place for the shape check
      result.order.push_back(user);
      result.inserted.push_back(0);
      continue;
    }
    const Finding finding =
        satisfy(table, first.find(infos[user].name), validity, [&](std::size_t id, Reason, std::size_t) { run(id, true); },
                &result.cycle);
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
