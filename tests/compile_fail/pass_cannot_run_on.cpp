// A pass whose call operator takes the IR by non-const reference and returns void.
// expect-error: requirement 'compile_error<passline::pass_cannot_run_on<Mutator, passline::testing::Trace>>'
// expect-error: fits neither shape
// max-errors: 1
// also-in: compiled registry
import passline;
import passline.testing;

using passline::testing::Trace;

struct Mutator {
  static constexpr passline::PassInfo info{.name = "Mutator"};
#ifdef PASSLINE_COMPILE_FAIL
  void operator()(Trace& trace, passline::PassContext&) const { trace.ran.emplace_back("Mutator"); }
#else
  Trace operator()(Trace trace, passline::PassContext&) const { return trace; }
#endif
};

using Case = passline::Sequential<Mutator>;
#include "use.h"
