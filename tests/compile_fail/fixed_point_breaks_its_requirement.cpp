// The loop's body requires InferType, which the pipeline runs before the
// loop; FoldConstant, late in the body, does not preserve it, so the second
// round would run EliminateCommonSubexpr on an IR whose types no longer hold.
// The twin's FoldConstant declares that it keeps the types.
// expect-error: required_pass_broken_by<EliminateCommonSubexpr, passline::detail::ProvidedBeforeTheLoop<
// expect-error: FoldConstant>, 0>, FoldConstant>
// expect-error: run the required pass again before its user
// max-errors: 1
// also-in: sequential compiled registry
import passline;
import passline.testing;

using passline::testing::Preserving;
using passline::testing::Step;
using passline::testing::Trace;

struct InferType : Step<"InferType"> {};
struct EliminateCommonSubexpr : Preserving<Step<"EliminateCommonSubexpr", 2, "InferType">, "InferType"> {};
#ifdef PASSLINE_COMPILE_FAIL
struct FoldConstant : Step<"FoldConstant", 2> {};
#else
struct FoldConstant : Preserving<Step<"FoldConstant", 2>, "InferType"> {};
#endif

using Pipeline = passline::Sequential<
    InferType, passline::FixedPoint<4, passline::Sequential<EliminateCommonSubexpr, FoldConstant>>>;

using Case = Pipeline;
#include "use.h"
