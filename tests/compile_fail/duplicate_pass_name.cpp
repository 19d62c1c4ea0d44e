// Two different pass types declare the name "Simplify".
// expect-error: requirement 'compile_error<passline::duplicate_pass_name<SimplifyExpr, SimplifyCFG>>'
// expect-error: pass names are unique
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct SimplifyExpr : Step<"Simplify"> {};
#ifdef PASSLINE_COMPILE_FAIL
struct SimplifyCFG : Step<"Simplify"> {};
#else
struct SimplifyCFG : Step<"SimplifyCFG"> {};
#endif

// The same type twice is one pass run twice, not a duplicate.
using Pipeline = passline::Sequential<SimplifyExpr, SimplifyCFG, SimplifyExpr>;

using Case = Pipeline;
#include "use.h"
