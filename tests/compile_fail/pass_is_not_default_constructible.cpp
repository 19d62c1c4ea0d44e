// A pass that needs a constructor argument cannot be made by a static pipeline.
// expect-error: requirement 'compile_error<passline::pass_is_not_default_constructible<Inline>>'
// expect-error: give the pass a default constructor
// max-errors: 1
// also-in: compiled registry
import passline;
import passline.testing;

using passline::testing::Trace;

struct Inline {
  static constexpr passline::PassInfo info{.name = "Inline"};
#ifdef PASSLINE_COMPILE_FAIL
  explicit Inline(int max_depth) : max_depth(max_depth) {}
#endif
  int max_depth = 2;
  Trace operator()(Trace trace, passline::PassContext&) const { return trace; }
};

using Case = passline::Sequential<Inline>;
#include "use.h"
