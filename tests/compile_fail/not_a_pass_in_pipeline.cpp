// A type without a PassInfo in a static pipeline.
// expect-error: requirement 'compile_error<passline::not_a_pass<Helper>>'
// expect-error: must declare `static constexpr passline::PassInfo info`
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
#ifdef PASSLINE_COMPILE_FAIL
struct Helper {
  Trace operator()(Trace trace, passline::PassContext&) const { return trace; }
};
#else
struct Helper : Step<"Helper"> {};
#endif

using Pipeline = passline::Sequential<InferType, Helper>;

using Case = Pipeline;
#include "use.h"
