// A type without a PassInfo cannot become a type-erased pass.
// expect-error: no viable conversion from 'NotAPass' to 'passline::Pass<Trace>'
// max-lines: 40
// max-errors: 1
// also-in: sequential compiled registry
// expect-error-in-sequential: requirement 'compile_error<passline::not_a_pass<NotAPass>>'
// expect-error-in-compiled: requirement 'compile_error<passline::not_a_pass<NotAPass>>'
// expect-error-in-registry: requirement 'compile_error<passline::not_a_pass<NotAPass>>'
#include "use.h"

#include <string>
#include <vector>
import passline;
import passline.testing;

using passline::testing::Trace;

struct NotAPass {
  Trace operator()(Trace trace, passline::PassContext&) const { return trace; }
};

struct APass : NotAPass {
  static constexpr passline::PassInfo info{.name = "APass"};
};

#ifdef PASSLINE_COMPILE_FAIL
using Case = NotAPass;
#else
using Case = APass;
#endif
#if PASSLINE_IN_CONTEXT
PASSLINE_USE(Trace)
#elif defined(PASSLINE_COMPILE_FAIL)
passline::Pass<Trace> erased = NotAPass{};
#else
passline::Pass<Trace> erased = APass{};
#endif
