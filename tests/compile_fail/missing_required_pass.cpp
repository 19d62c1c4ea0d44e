// FoldConstant requires InferType, which the pipeline does not run before it.
// expect-error: static assertion failed due to requirement 'compile_error<passline::missing_required_pass<FoldConstant, passline::fixed_string<10>\{"InferType"\}>>'
// expect-error: add the required pass before it
// max-errors: 1
// also-in: sequential compiled
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct DeadCodeElimination : Step<"DeadCodeElimination"> {};

#ifdef PASSLINE_COMPILE_FAIL
using Pipeline = passline::Sequential<DeadCodeElimination, FoldConstant>;
#else
using Pipeline = passline::Sequential<DeadCodeElimination, InferType, FoldConstant>;
#endif

using Case = Pipeline;
#include "use.h"
