// Pass options: data members of a pass, declared once with a name and a use.
//
//   struct Inline {
//     static constexpr passline::PassInfo info{...};
//     std::int64_t max_size = 32;
//     static constexpr auto options = passline::options(
//         passline::option<&Inline::max_size>("max-size", "largest callee inlined"));
//   };
//
// The registry lists them with their types and defaults (the default is what a
// default-constructed pass holds), the pipeline parser sets them by name and
// the printer writes them back, all from this one declaration.
module;
#include <boost/hana.hpp>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>
export module passline:options;
import :value;

namespace hana = boost::hana;

export namespace passline {

/// What a registry lists about an option.
struct OptionSpec {
  std::string name;
  Value default_value;
  std::string description;
  std::string_view type_name() const { return value_type_name(default_value); }
};

}  // namespace passline

// Internal to the library.
namespace passline {

/// One option: the data member it sets, the name it has in pipeline text, its use.
template <auto Member>
struct OptionDecl {
  std::string_view name;
  std::string_view description;
};

}  // namespace passline

export namespace passline {

/// Option `name` of a pass, which sets the data member `Member`:
/// `passline::option<&Inline::max_size>("max-size", "largest callee inlined")`.
template <auto Member>
constexpr OptionDecl<Member> option(std::string_view name, std::string_view description) {
  return {name, description};
}

/// The options of a pass, in the order they are printed.
template <class... Decls>
constexpr auto options(Decls... decls) {
  return hana::make_tuple(decls...);
}

}  // namespace passline

// Internal to the library.
namespace passline {

/// A pass type that declares options.
template <class P>
concept HasOptions = requires { P::options; };

}  // namespace passline

namespace passline::detail {

template <class P, class T>
constexpr T member_type_of(T P::*);

template <auto Member>
using member_value_t = decltype(member_type_of(Member));

/// Applies `f(decl, member pointer)` to each option of P (none if P declares none).
template <class P, class F>
void for_each_option(F&& f) {
  if constexpr (HasOptions<P>) {
    hana::for_each(P::options, [&]<auto Member>(const OptionDecl<Member>& decl) {
      static_assert(ValueType<member_value_t<Member>>,
                    "a pass option must be a bool, std::int64_t, double or std::string member");
      f(decl, Member);
    });
  }
}

/// The names of `specs`, for suggestions when a name is not among them.
inline std::vector<std::string_view> option_names(const std::vector<OptionSpec>& specs) {
  std::vector<std::string_view> names;
  for (const OptionSpec& spec : specs) names.push_back(spec.name);
  return names;
}

/// Name, type, default and description of each option of P.
template <class P>
std::vector<OptionSpec> option_specs() {
  std::vector<OptionSpec> specs;
  const P defaults{};
  for_each_option<P>([&](const auto& decl, auto member) {
    specs.push_back({std::string(decl.name), Value(defaults.*member), std::string(decl.description)});
  });
  return specs;
}

/// The current value of each option of `pass`, by name.
template <class P>
std::vector<std::pair<std::string, Value>> option_values(const P& pass) {
  std::vector<std::pair<std::string, Value>> values;
  for_each_option<P>([&](const auto& decl, auto member) { values.emplace_back(std::string(decl.name), Value(pass.*member)); });
  return values;
}

/// Sets the option called `name`; false when P has no such option. The value
/// has the option's type (the caller parsed it as such).
template <class P>
bool set_option(P& pass, std::string_view name, const Value& value) {
  bool found = false;
  for_each_option<P>([&](const auto& decl, auto member) {
    if (decl.name != name) return;
    pass.*member = std::get<std::remove_cvref_t<decltype(pass.*member)>>(value);
    found = true;
  });
  return found;
}

}  // namespace passline::detail
