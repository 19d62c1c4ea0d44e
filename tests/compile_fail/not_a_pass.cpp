// A type without a PassInfo cannot become a type-erased pass.
// expect-error: requirement 'compile_error<passline::not_a_pass<NotAPass>>'
// expect-error: must declare `static constexpr passline::PassInfo info`
// max-errors: 1
// also-in: sequential compiled registry
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
#include "use.h"
#elif defined(PASSLINE_COMPILE_FAIL)
passline::Pass<Trace> erased = NotAPass{};
#else
passline::Pass<Trace> erased = APass{};
#endif
