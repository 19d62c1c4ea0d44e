// The pipeline lists InferType, but only after FoldConstant, which requires it.
// Nested pipelines are flattened for the check.
// expect-error: requirement 'compile_error<passline::required_pass_runs_after_its_user<FoldConstant, InferType>>'
// expect-error: move it before its user
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};
struct Inline : Step<"Inline"> {};

#ifdef PASSLINE_COMPILE_FAIL
using Pipeline = passline::Sequential<passline::Sequential<Inline, FoldConstant>, InferType>;
#else
using Pipeline = passline::Sequential<passline::Sequential<Inline, InferType>, FoldConstant>;
#endif

using Case = Pipeline;
#include "use.h"
