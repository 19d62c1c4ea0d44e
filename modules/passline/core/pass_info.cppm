// PassInfo: the one declaration of a pass's metadata.
//
// A pass type carries `static constexpr passline::PassInfo info`. The same value
// feeds the compile-time checks of static pipelines, the runtime registry, the
// instruments and `--list-passes`, so it is a literal type built only from views
// of static storage: string literals and arrays made by `passline::needs<...>`.
module;
#include <algorithm>
#include <array>
#include <cstddef>
#include <concepts>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string_view>
export module passline:pass_info;

export namespace passline {

/// A string literal usable as a template argument: `needs<"InferType">`.
template <std::size_t N>
struct fixed_string {
  char chars[N]{};
  constexpr fixed_string() = default;
  constexpr fixed_string(const char (&text)[N]) { std::copy_n(text, N, chars); }
  constexpr std::string_view view() const { return {chars, N - 1}; }
  constexpr operator std::string_view() const { return view(); }
};

}  // namespace passline

// Internal to the library.
namespace passline {

/// The literal for a constexpr string: `to_fixed_string<name.size()>(name)`.
template <std::size_t Length>
constexpr fixed_string<Length + 1> to_fixed_string(std::string_view text) {
  fixed_string<Length + 1> result;
  std::copy_n(text.data(), Length, result.chars);
  return result;
}

/// Static storage for the names of required passes.
template <fixed_string... Names>
inline constexpr std::array<std::string_view, sizeof...(Names)> name_array{
    std::string_view(Names)...};

}  // namespace passline

export namespace passline {

/// A list of names in a PassInfo: `.required = passline::needs<"InferType">`,
/// `.preserves = passline::names<"InferType", "UseCounts">`.
template <fixed_string... Names>
inline constexpr std::span<const std::string_view> names = name_array<Names...>;

/// `.required = passline::needs<"InferType", "ToANormalForm">` in a PassInfo.
template <fixed_string... Names>
inline constexpr std::span<const std::string_view> needs = name_array<Names...>;

/// `.preserves = passline::preserves_all`: the pass never changes the IR (a
/// verifier, a printer), so every requirement and analysis stays valid.
inline constexpr std::span<const std::string_view> preserves_all = name_array<"*">;

}  // namespace passline

// Internal to the library.
namespace passline {

/// Where a name list is written with braces, `.required = {"InferType"}`:
/// the braces would make an array that is gone once the declaration ends.
/// Write `.required = passline::needs<"InferType">` (or `passline::names<...>`).
constexpr void write_the_names_as_passline_needs_not_in_braces(bool braces) {
  if (braces) throw std::logic_error("write PassInfo name lists as passline::needs<...>, not in braces");
}

/// The names in a PassInfo (`required`, `preserves`): a view of names in
/// static storage, as `passline::needs<...>` and `passline::names<...>` make.
class NameList : public std::span<const std::string_view> {
 public:
  using Span = std::span<const std::string_view>;
  constexpr NameList() = default;
  constexpr NameList(Span names) : Span(names) {}
  /// Names held elsewhere (a vector, an array) that outlive the PassInfo.
  template <class Names>
    requires(std::convertible_to<const Names&, Span> && !std::same_as<Names, Span>)
  constexpr NameList(const Names& names) : Span(names) {}
  /// Braces: an error that says what to write instead.
  constexpr NameList(std::initializer_list<std::string_view>) { write_the_names_as_passline_needs_not_in_braces(true); }
};

}  // namespace passline

export namespace passline {

/// What every pass declares once: its unique name, the lowest opt level it runs
/// at, the passes that must have run before it, a one-line summary, and what
/// stays valid when it changes the IR.
///
/// The rule for required passes, at compile time and at run time alike: a
/// requirement holds from the time the required pass ran until a pass that
/// does not preserve it changes the IR.
struct PassInfo {
  std::string_view name;
  int opt_level = 0;
  NameList required = {};
  std::string_view summary = {};
  /// False for a pass that must always run when reached (`--opt-bisect-limit`
  /// never skips it): one that later passes' preconditions depend on.
  bool optional = true;
  /// What stays valid when this pass changes the IR: the names of passes whose
  /// requirement it keeps, and of analyses whose results it keeps. Default:
  /// nothing. `preserves_all` for a pass that never changes the IR.
  NameList preserves = {};

  /// True when `pass` is one of this pass's requirements.
  constexpr bool requires_pass(std::string_view pass) const {
    return std::ranges::find(required, pass) != required.end();
  }

  /// True when what `name` established stays valid after this pass runs.
  constexpr bool keeps(std::string_view name) const {
    return std::ranges::any_of(preserves, [&](std::string_view kept) { return kept == name || kept == "*"; });
  }

  /// True when the pass never changes the IR.
  constexpr bool preserves_everything() const { return std::ranges::find(preserves, "*") != preserves.end(); }
};

/// What every analysis declares once: its unique name (what
/// `PassInfo::preserves` lists to keep its results) and a one-line summary.
struct AnalysisInfo {
  std::string_view name;
  std::string_view summary = {};
};

}  // namespace passline

// Internal to the library.
namespace passline {

/// The opt level of a pass that runs only when a later pass requires it:
/// no context's level reaches it, and a pass runs whenever a pass that
/// requires it does.
inline constexpr int only_when_required = 1 << 30;

}  // namespace passline

export namespace passline {

/// `P` where `ResolvedSequential` inserted it for a requirement: it runs
/// where it stands when (and only when) the pass that requires it runs,
/// static and runtime alike.
template <class P>
struct Inserted : P {
  static constexpr PassInfo info = [] {
    PassInfo declared = P::info;
    declared.opt_level = only_when_required;
    return declared;
  }();
};

/// `P` with option values set where the pipeline is written, for a static
/// pipeline: `Configured<Inline, [](Inline& pass) { pass.max_size = 40; }>`.
/// The compiler checks the options (their names and types are P's members),
/// and the pass runs, prints and is timed as P with these values.
template <class P, auto Set>
  requires requires(P& pass) { Set(pass); }
struct Configured : P {
  constexpr Configured() : P() { Set(static_cast<P&>(*this)); }
};

/// Why a run puts a pass where it stands (`PassPlace::reason`, and
/// `--print-pipeline=expanded`).
enum class RunReason : unsigned char {
  listed,    // the pipeline lists it
  required,  // a later pass requires it, and it had not run
  rerun,     // a later pass requires it, and a pass since did not preserve it
};

}  // namespace passline
