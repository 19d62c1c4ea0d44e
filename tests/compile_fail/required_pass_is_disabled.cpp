// The compiled form disables InferType, which the kept FoldConstant requires.
// expect-error: requirement 'compile_error<passline::required_pass_is_disabled<FoldConstant, InferType>>'
// expect-error: disable its user too
// max-errors: 1
import passline;
import passline.testing;

using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct FoldConstant : Step<"FoldConstant", 2, "InferType"> {};

using Pipeline = passline::Sequential<InferType, FoldConstant>;
#ifdef PASSLINE_COMPILE_FAIL
using Fast = passline::Compiled<2, Pipeline, "InferType">;
#else
using Fast = passline::Compiled<2, Pipeline, "InferType", "FoldConstant">;
#endif

Trace run(passline::PassContext& ctx) { return Fast{}(Trace{}, ctx); }
