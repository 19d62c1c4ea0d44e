// Internal: the one rule for required passes. Not part of the API.
//
// A requirement holds from the time the required pass ran until a pass that
// does not preserve it (PassInfo::preserves) changes the IR. This partition
// states the rule once, as constexpr code over a table of PassInfo, so that
// static pipelines decide it at compile time (`:analysis`: the check of a
// plain Sequential, the insertions of ResolvedSequential) and runtime
// pipelines decide it at plan time (`:plan`), from the same declarations.
//
// A table names passes by a dense id: the position of the first pass of each
// name. It answers `info(id)` and `find(name)` (an id, or `npos`); at run
// time it may grow as required passes are found in a registry.
//
// Which listed passes run is one rule too (`close_over_requirements`): those
// the gate admits, and every earlier pass they require, transitively. The
// compiled form applies it at compile time, the planner at plan time.
module;
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>
export module passline:requirements;
import :pass_info;

namespace passline::detail {

inline constexpr std::size_t npos = static_cast<std::size_t>(-1);

/// What a walk over a pipeline found wrong.
enum class Problem {
  none,
  duplicate_name,     // pass, other: two types, one name
  missing,            // pass, requirement: no pass provides it
  after_user,         // pass, other, requirement: provided only later
  self_requirement,   // pass requires its own name
  unknown,            // pass, requirement: neither pipeline nor catalog
  cycle,              // the cycle is reported apart
  disabled_required,  // pass requires other, which is disabled
  broken,             // pass requires other, which ran, but breaker did not preserve it since
  conflict,           // pass requires other and breaker, and breaker does not preserve other
};

struct Finding {
  Problem problem = Problem::none;
  std::size_t pass = 0;
  std::size_t other = 0;
  std::size_t requirement = 0;
  std::size_t breaker = 0;
};

/// Why a pass runs where it does.
using Reason = RunReason;

/// Which requirements hold at a point of a pipeline: the names whose pass ran
/// and that every pass since preserved. For a name that stopped holding, the
/// position of the pass that broke it.
class Validity {
 public:
  constexpr Validity() = default;
  constexpr explicit Validity(std::size_t ids) { reserve(ids); }

  constexpr void reserve(std::size_t ids) {
    if (holds_.size() < ids) {
      holds_.resize(ids, 0);
      broken_by_.resize(ids, npos);
    }
  }

  constexpr bool holds(std::size_t id) const { return id < holds_.size() && holds_[id]; }
  /// The position of the pass that last broke `id`, or `npos` if it never ran.
  constexpr std::size_t broken_by(std::size_t id) const { return id < broken_by_.size() ? broken_by_[id] : npos; }

  /// The pass `info`, whose name has id `self`, ran at position `at`: what it
  /// does not preserve stops holding, and its own name holds. `name_of` gives
  /// the name of an id.
  template <class NameOf>
  constexpr void ran(const PassInfo& info, std::size_t self, std::size_t at, NameOf name_of) {
    reserve(self + 1);
    if (!info.preserves_everything()) {
      std::size_t kept = 0;
      for (std::size_t id : live_) {
        if (id != self && !info.keeps(name_of(id))) {
          holds_[id] = 0;
          broken_by_[id] = at;
        } else {
          live_[kept++] = id;
        }
      }
      live_.resize(kept);
    }
    if (!holds_[self]) {
      holds_[self] = 1;
      live_.push_back(self);
    }
  }

 private:
  std::vector<unsigned char> holds_;  // not vector<bool>, which is not constexpr in every library
  std::vector<std::size_t> broken_by_;
  std::vector<std::size_t> live_;  // the ids that hold
};

/// A map from pass names to positions, in constexpr code as at run time:
/// open addressing over a table twice the size of the names it may hold,
/// so that checks stay linear in the number of passes.
class NameIndex {
 public:
  constexpr explicit NameIndex(std::size_t names)
      : names_(std::bit_ceil(2 * names + 2), std::string_view()), hashes_(names_.size(), 0),
        positions_(names_.size(), npos) {}

  /// The position already stored for `name`, or `position` after storing it.
  constexpr std::size_t insert(std::string_view name, std::size_t position) {
    const std::uint64_t h = hash(name);
    const std::size_t slot = find_slot(name, h);
    if (positions_[slot] == npos) {
      names_[slot] = name;
      hashes_[slot] = h;
      positions_[slot] = position;
    }
    return positions_[slot];
  }

  /// Stores `position` for `name`, replacing what was there.
  constexpr void assign(std::string_view name, std::size_t position) {
    const std::uint64_t h = hash(name);
    const std::size_t slot = find_slot(name, h);
    names_[slot] = name;
    hashes_[slot] = h;
    positions_[slot] = position;
  }

  /// The position stored for `name`, or `npos`.
  constexpr std::size_t find(std::string_view name) const { return positions_[find_slot(name, hash(name))]; }

 private:
  /// FNV-1a, then mixed (MurmurHash3's finalizer) so that names alike but
  /// for a digit do not fall into one run of slots.
  static constexpr std::uint64_t hash(std::string_view name) {
    std::uint64_t hash = 14695981039346656037ull;
    for (char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdull;
    hash ^= hash >> 33;
    return hash;
  }
  /// Names are compared only where the hashes agree: in constant
  /// evaluation, a string comparison costs many steps, an integer one.
  constexpr std::size_t find_slot(std::string_view name, std::uint64_t h) const {
    const std::size_t mask = names_.size() - 1;
    std::size_t slot = h & mask;
    while (positions_[slot] != npos && (hashes_[slot] != h || names_[slot] != name)) slot = (slot + 1) & mask;
    return slot;
  }

  std::vector<std::string_view> names_;
  std::vector<std::uint64_t> hashes_;
  std::vector<std::size_t> positions_;
};

/// Which passes of a flat pipeline run, and why.
struct Closure {
  std::vector<unsigned char> runs;  // per pass
  /// Per pass that runs only because a later pass requires it: that pass (the
  /// last such user); `npos` for the others.
  std::vector<std::size_t> required_by;
  /// `disabled_required`: `pass`, the first user of `other`, which is disabled.
  Finding finding{};
};

/// Which passes of `infos` run: those `enabled` marks, and every pass they
/// require, transitively: a required pass runs whenever its user does. A
/// user's provider is the last pass of the required name before it (the one
/// whose work holds when it runs); a name provided only later, or not at all,
/// is left to the ordering check or to resolution. A provider that
/// `disabled` names stops the closure with a finding naming its first user.
template <class Disabled>
constexpr Closure close_over_requirements(std::span<const PassInfo> infos, std::vector<unsigned char> enabled,
                                          Disabled disabled) {
  const std::size_t n = infos.size();
  // For each pass, its providers, flattened: those of pass i are [offsets[i], offsets[i + 1]).
  std::vector<std::size_t> providers;
  std::vector<std::size_t> offsets(n + 1, 0);
  NameIndex last(n);
  for (std::size_t i = 0; i < n; ++i) {
    offsets[i] = providers.size();
    for (std::string_view required : infos[i].required) {
      if (const std::size_t j = last.find(required); j != npos) providers.push_back(j);
    }
    if (!infos[i].name.empty()) last.assign(infos[i].name, i);
  }
  offsets[n] = providers.size();
  Closure closure{.runs = std::move(enabled), .required_by = std::vector<std::size_t>(n, npos)};
  // Providers come before their users, so one backward sweep closes the set.
  for (std::size_t i = n; i-- > 0;) {
    if (!closure.runs[i]) continue;
    for (std::size_t k = offsets[i]; k < offsets[i + 1]; ++k) {
      const std::size_t j = providers[k];
      if (closure.runs[j]) continue;
      if (disabled(infos[j].name)) {
        // Later users come first in this sweep: the last finding names the first user.
        closure.finding = {.problem = Problem::disabled_required, .pass = i, .other = j};
        continue;
      }
      closure.runs[j] = 1;
      closure.required_by[j] = i;
    }
  }
  return closure;
}

/// The stack of the walk `satisfy` makes: the passes whose requirements are
/// being made to hold, innermost last.
struct SatisfyStack {
  struct Frame {
    std::size_t id;
    std::size_t next = 0;
    bool second_round = false;
  };
  std::vector<Frame> frames;
  std::vector<std::size_t> on_stack;
};

/// Makes the requirements of the pass with id `user` hold: each required pass
/// that does not hold runs first, after its own requirements, transitively.
/// `emit(id, reason, required_by)` is called for each pass to insert, in
/// order, and must tell `validity` that it ran. A requirement that another
/// requirement of the same user breaks is a conflict; a chain that comes back
/// to a pass is a cycle, left in `cycle`; a name the table does not know is
/// unknown, and `cycle` holds the chain of passes that reached it. Iterative, so deep chains cost no stack.
/// `work` is the walk's stack, kept by the caller from one call to the next:
/// in constant evaluation, making a vector's room costs hundreds of steps.
template <class Table, class Emit>
constexpr Finding satisfy(Table& table, std::size_t user, Validity& validity, Emit emit, SatisfyStack& work,
                          std::vector<std::size_t>* cycle = nullptr) {
  using Frame = SatisfyStack::Frame;
  std::vector<Frame>& stack = work.frames;
  std::vector<std::size_t>& on_stack = work.on_stack;
  stack.assign(1, Frame{user});
  on_stack.assign(1, user);
  while (!stack.empty()) {
    Frame& top = stack.back();
    const PassInfo info = table.info(top.id);
    if (top.next < info.required.size()) {
      const std::size_t r = top.next++;
      const std::size_t provider = table.find(info.required[r]);
      if (provider == npos) {
        if (cycle) cycle->assign(on_stack.begin(), on_stack.end());  // the chain that reached it
        return {.problem = Problem::unknown, .pass = top.id, .requirement = r};
      }
      validity.reserve(provider + 1);
      if (validity.holds(provider)) continue;
      for (std::size_t k = 0; k < on_stack.size(); ++k) {
        if (on_stack[k] != provider) continue;
        if (cycle) cycle->assign(on_stack.begin() + static_cast<std::ptrdiff_t>(k), on_stack.end());
        return {.problem = Problem::cycle, .pass = top.id};
      }
      stack.push_back(Frame{provider});
      on_stack.push_back(provider);
      continue;
    }
    // Every requirement ran; one may have broken another: a second round
    // re-runs what no longer holds, and after it all must hold.
    std::size_t broken = npos;
    for (std::size_t r = 0; r < info.required.size() && broken == npos; ++r) {
      if (!validity.holds(table.find(info.required[r]))) broken = r;
    }
    if (broken != npos) {
      const std::size_t provider = table.find(info.required[broken]);
      if (top.second_round) {
        return {.problem = Problem::conflict, .pass = top.id, .other = provider, .requirement = broken,
                .breaker = validity.broken_by(provider)};
      }
      top.second_round = true;
      top.next = 0;
      continue;
    }
    const Frame done = stack.back();
    stack.pop_back();
    on_stack.pop_back();
    if (stack.empty()) break;  // the user itself is the caller's to run
    const std::size_t required_by = stack.back().id;
    emit(done.id, validity.broken_by(done.id) == npos ? Reason::required : Reason::rerun, required_by);
  }
  return {};
}

}  // namespace passline::detail
