// passline.testing: a tiny IR for the library's own tests.
//
// The IR is the list of passes that ran on it, so a test reads the execution
// order straight off the result. Passes are stamped out from a template so that
// a test declares exactly the names, levels and requirements it needs.
module;
#include <string>
#include <string_view>
#include <vector>
export module passline.testing;
import passline;

export namespace passline::testing {

/// An IR that records which passes ran on it, in order.
struct Trace {
  std::vector<std::string> ran;
  friend bool operator==(const Trace&, const Trace&) = default;
};

/// A module pass named `Name` that appends its name to the trace.
template <fixed_string Name, int OptLevel = 0, fixed_string... Required>
struct Step {
  static constexpr PassInfo info{
      .name = Name.view(),
      .opt_level = OptLevel,
      .required = needs<Required...>,
      .summary = "records that it ran",
  };
  Trace operator()(Trace trace, PassContext&) const {
    trace.ran.emplace_back(info.name);
    return trace;
  }
};

}  // namespace passline::testing
